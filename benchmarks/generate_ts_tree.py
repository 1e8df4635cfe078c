"""Write a synthetic TypeScript/TSX tree for the `agui migrate` benchmark.

Modules of about 150 lines (types, helpers, a service class, a React component); a
share of them also call the legacy approval API the way TanStack AI apps do
(`useChat` destructuring, a `ChatClient` module, a loop, a server event). Deterministic
for a given seed.

    python benchmarks/generate_ts_tree.py OUT_DIR --files 2000 [--legacy-share 0.02] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from generate_tree import WORDS

HEADER = """// {title} feature: loading, validating and showing {plural}.
import {{ useMemo, useState }} from 'react'

export const MAX_{upper} = {limit}

export type {cls}Status = 'created' | 'updated' | 'deleted' | 'archived' | 'failed'

export interface {cls} {{
  id: string
  owner: string
  amount: number
  tags: string[]
  status: {cls}Status
  meta: Record<string, unknown>
}}

const STATUS_ACTIONS: Record<{cls}Status, 'store' | 'drop' | 'retry'> = {{
  created: 'store',
  updated: 'store',
  deleted: 'drop',
  archived: 'drop',
  failed: 'retry',
}}
"""

FUNCTION = """
export function {name}(items: {cls}[], threshold = {n}): Record<string, number> {{
  // Group {noun} amounts by owner, skipping the ones under `threshold`.
  const totals: Record<string, number> = {{}}
  for (const item of items) {{
    if (item.amount < threshold || STATUS_ACTIONS[item.status] === 'drop') {{
      continue
    }}
    totals[item.owner] = (totals[item.owner] ?? 0) + item.amount
  }}
  return Object.fromEntries(Object.entries(totals).sort(([a], [b]) => a.localeCompare(b)))
}}
"""

SERVICE = """
export class {cls}Service {{
  private readonly store = new Map<string, {cls}>()
  readonly errors: string[] = []

  add(item: {cls}): void {{
    if (this.store.has(item.id)) {{
      this.errors.push(`duplicate ${{item.id}}`)
      return
    }}
    this.store.set(item.id, item)
  }}

  byOwner(owner: string): {cls}[] {{
    return [...this.store.values()].filter((item) => item.owner === owner)
  }}

  total(): number {{
    let sum = 0
    for (const item of this.store.values()) sum += item.amount
    return sum
  }}

  parse(raw: string): {cls} | null {{
    try {{
      const data = JSON.parse(raw) as Partial<{cls}>
      return {{
        id: String(data.id),
        owner: data.owner ?? 'unknown',
        amount: Number(data.amount ?? 0),
        tags: (data.tags ?? []).map((tag) => tag.trim().toLowerCase()),
        status: data.status ?? 'created',
        meta: data.meta ?? {{}},
      }}
    }} catch {{
      this.errors.push('bad {noun} payload')
      return null
    }}
  }}
}}
"""

COMPONENT = """
export function {cls}Table({{ items }}: {{ items: {cls}[] }}) {{
  const [owner, setOwner] = useState('')
  const shown = useMemo(
    () => items.filter((item) => !owner || item.owner === owner),
    [items, owner],
  )
  return (
    <table>
      <caption>
        <input value={{owner}} onChange={{(event) => setOwner(event.target.value)}} />
      </caption>
      <tbody>
        {{shown.map((item) => (
          <tr key={{item.id}}>
            <td>{{item.owner}}</td>
            <td>{{item.amount}}</td>
          </tr>
        ))}}
      </tbody>
    </table>
  )
}}
"""

LEGACY = (
    """
export function {cls}Approvals({{ ids }}: {{ ids: string[] }}) {{
  const {{ addToolApprovalResponse, pendingInterrupts }} = useChat({{ connection, tools }})
  return (
    <div>
      {{ids.map((id) => (
        <button key={{id}} onClick={{() => addToolApprovalResponse({{ id, approved: true }})}}>
          Approve ({{pendingInterrupts.length}})
        </button>
      ))}}
    </div>
  )
}}
""",
    """
export async function answer{cls}(client: AppClient, id: string): Promise<void> {{
  await client.addToolApprovalResponse({{ id, approved: false }})
}}
""",
    """
export async function approveAll{cls}(client: AppClient, ids: string[]) {{
  for (const id of ids) {{
    await client.addToolApprovalResponse({{ id, approved: true }})
  }}
  return client.getPendingInterrupts().length
}}
""",
    """
export function is{cls}Request(chunk: {{ type: string; name?: string }}): boolean {{
  return chunk.type === 'CUSTOM' && chunk.name === 'approval-requested'
}}
""",
)


def module(rng: random.Random, legacy: bool) -> str:
    noun, other = rng.sample(WORDS, 2)
    cls = noun.capitalize()
    values = {
        "noun": noun,
        "plural": noun + "s",
        "other": other,
        "cls": cls,
        "upper": noun.upper(),
        "title": cls,
        "limit": rng.randint(100, 10_000),
    }
    parts = [HEADER.format(**values)]
    for index in range(5):
        name = f"summarise{cls}{index}"
        parts.append(FUNCTION.format(name=name, n=rng.randint(1, 99), **values))
    parts.append(SERVICE.format(**values))
    parts.append(COMPONENT.format(**values))
    if legacy:
        parts.append(rng.choice(LEGACY).format(**values))
    return "".join(parts)


def generate(out: Path, files: int, legacy_share: float = 0.02, seed: int = 7) -> int:
    """Write `files` .tsx modules under `out`; returns how many carry legacy call sites."""
    rng = random.Random(seed)
    legacy_count = 0
    for index in range(files):
        package = out / f"feature_{index // 50:04d}"
        package.mkdir(parents=True, exist_ok=True)
        legacy = rng.random() < legacy_share
        legacy_count += legacy
        (package / f"mod_{index:05d}.tsx").write_text(module(rng, legacy), encoding="utf-8")
    return legacy_count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--legacy-share", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    count = generate(args.out, args.files, args.legacy_share, args.seed)
    print(f"wrote {args.files} modules, {count} with legacy call sites, under {args.out}")


if __name__ == "__main__":
    main()
