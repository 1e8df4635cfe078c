// The scenario catalogue built from this project's packages (@tanstack/ai 0.42.0,
// zod 4). 0.42.0 has no defineInterrupt, so only the legacy scenarios exist.
import { toolDefinition } from '@tanstack/ai'
import { z } from 'zod'

import { buildCatalog } from '../scenario_catalog.mjs'

export const catalog = buildCatalog({ toolDefinition, defineInterrupt: undefined, z })
