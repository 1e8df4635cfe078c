// The scenario catalogue built from this project's packages (@tanstack/ai 0.58.0, zod 4).
import { defineInterrupt, toolDefinition } from '@tanstack/ai'
import { z } from 'zod'

import { buildCatalog } from '../scenario_catalog.mjs'

export const catalog = buildCatalog({ toolDefinition, defineInterrupt, z })
