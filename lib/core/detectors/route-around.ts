import type { PatternDetector } from './types'
import { draft } from './types'

/** Blocks followed by the same effect through another tool: close the side door explicitly. */
export const routeAround: PatternDetector = {
  id: 'route-around',
  description: 'a block followed by the same effect through another tool or command, at least twice',
  detect({ agg, today }) {
    const r = agg.routeArounds
    if (r.count < 2) return []
    const commands = r.examples.map((e) => e.trim()).filter(Boolean)
    return [
      {
        key: `route-around:${commands.join('|')}`,
        detector: this.id,
        title: `the agent routed around a block ${r.count}× in ${r.sessions.size} sessions`,
        evidence: { count: r.count, sessions: r.sessions.size, examples: commands },
        guardrail: draft(
          {
            id: '',
            source: `pattern-detect: route-around ×${r.count}`,
            pattern: 'route_around',
            match: { command: commands.map((c) => c.replace(/[*?]/g, '?')) },
            trigger: 'the same effect as a blocked call, another way',
            rule: 'This was used to get around a block before. Ask the user instead.',
            severity: 'hard',
          },
          today,
        ),
      },
    ]
  },
}
