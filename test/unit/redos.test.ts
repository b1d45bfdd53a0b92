// Bounded work on untrusted input: no regex in lib/core may backtrack catastrophically, and the
// classifier finishes on adversarial and oversized input. A hook that outlives its budget is
// killed and the tool runs, so a slow regex is a way through the guard (issue 9: an 85-character
// command once hung preflight-check this way).
//
// Two halves, neither reading a clock (how fast is `npm run bench`'s business):
// - Structure: every regex literal in lib/core is found with the TypeScript parser (so a new one is
//   covered the day it is written) and analysed by scslre, which proves from the regex's automaton
//   whether some input makes it backtrack exponentially or polynomially. Same regex, same answer, at
//   any load.
// - Answers on adversarial input: each regex is fed strings built from its own fragments (repeated, then
//   a character that forces a failed match) and must agree with V8's linear-time engine wherever that
//   engine can run it; classify() and the exported matchers get adversarial commands and 100 KB fields
//   and must give the expected answers. The work runs in a child process (redos-fuzz.ts) killed at a
//   generous bound, because a catastrophic regex cannot be interrupted in the process that runs it: the
//   bound catches a hang, it does not measure speed.

import { spawn } from 'node:child_process'
import path from 'node:path'
import { RegExpParser } from '@eslint-community/regexpp'
import { analyse } from 'scslre'
import { describe, expect, it } from 'vitest'
import { readCommandLine } from '../../lib/core/commands'
import { regexLiterals } from './redos-fuzz'
const FUZZ = path.join(__dirname, 'redos-fuzz.ts')

/**
 * The regexes in lib/core that can backtrack polynomially (quadratically: scslre finds a character whose
 * repetition makes two quantifiers trade it, or a quantifier move along the input), by file and literal.
 * Each is run on inputs the reader has already cut to size, and none is exponential. A new regex should be
 * written without the ambiguity (a lookahead that makes a run take all it can, classes that do not overlap);
 * one added here needs a reason in the commit.
 */
const POLYNOMIAL = new Set([
  'actions/cloud.ts /^(?:s3|gs):\\/\\/([^/]+)\\/?(.*)$/',
  'actions/cloud.ts / +\\(/',
  'actions/sql-losses.ts /\\s*,\\s*/',
  'actions/forge.ts /(\\d+)\\/(comments|reviews)$/',
  'actions/fs-delete.ts /\\b(?:os\\.(?:remove|unlink|rmdir|removedirs)|shutil\\.rmtree|send2trash(?:\\.send2trash)?|rmSync|unlinkSync|rmdirSync|fs\\.(?:promises\\.)?(?:rm|unlink|rmdir)|rimraf(?:\\.sync)?|File\\.(?:delete|unlink)|FileUtils\\.(?:rm|rm_r|rm_rf|remove|remove_dir|remove_entry)|unlink|rmdir|remove_tree|rmtree)\\s*\\(?\\s*([\'"`])([^\'"`\\n]{1,1024})\\1/g',
  'actions/git-config.ts /^\\[\\s*([^\\s"\\]]+)(?:\\s+"((?:[^"\\\\]|\\\\.)*)")?\\s*\\]\\s*(.*)$/',
  'actions/git-config.ts /^([A-Za-z][\\w-]*)\\s*(?:=\\s*(.*))?$/',
  'actions/git-config.ts /^ssh(\\s+[^;&|`$<>()\\n]*)?$/',
  'actions/git-config.ts /^([A-Za-z][\\w-]*)\\s*=\\s*(.*)$/',
  'actions/mail.ts /^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$/',
  'actions/network.ts /[?#].*$/',
  'actions/planted.ts /^\\s*(?:rustc-wrapper|rustc-workspace-wrapper|rustc|rustdoc|runner|linker)\\s*=\\s*(?:"([^"]*)"|\'([^\']*)\'|\\[\\s*"([^"]*)")/gm',
  'actions/planted.ts /^\\s*url\\s*=\\s*(\\S+)/gm',
  'actions/planted.ts /^\\s*-\\s*repo:\\s*/m',
  'actions/planted.ts /^\\s*entry:\\s*(.+)$/gm',
  'actions/planted.ts /^\\s*distributionUrl\\s*=\\s*(\\S+)/m',
  'actions/mutators.ts /[<>=!~[].*$/',
  'actions/mutators.ts /@.*$/',
  'actions/unreadable.ts /[/?#:].*$/',
  'actions/unreadable.ts /[?#].*$/',
  'actions/unreadable.ts /%%|%[-+ #0]*\\d*(?:\\.\\d+)?[sbdc]/g',
  'courtroom/hearing.ts /^[ \\t]*CHARGE:[ \\t]*([\\s\\S]*?)(?=^[ \\t]*PRIMARY_FAILURE:|$(?![\\s\\S]))/m',
  'courtroom/hearing.ts /^[ \\t]*PRIMARY_FAILURE:\\s*(.+)$/m',
  'courtroom/hearing.ts /^[ \\t]*\\**REASON\\**:\\s*([\\s\\S]+)$/im',
  'dependency.ts /#.*$/',
  'dependency.ts /^[._-]+|-+$/g',
  'detach.ts /^@\\w+\\s+(.+)$/',
  'detach.ts /^(?:\\S+\\s+){5}(.+)$/',
  'drift-checks.ts /<<-?\\s*[\'"]?\\w+[\'"]?[\\s\\S]*$/',
  'evidence/outside-repo.ts /^[^/]+@[^/]+:/',
  'evidence/interpreter-code.ts /^\\s*([\'"])([^\'"\\n]{1,400})\\1\\s*(?:,\\s*([\'"])([^\'"\\n]{0,8})\\3)?\\s*[,)]/',
  'evidence/interpreter-code.ts /^[ \\t]*(?:from[ \\t]+(\\.*[\\w.]*)[ \\t]+import|import[ \\t]+([\\w.]+(?:[ \\t]*,[ \\t]*[\\w.]+)*))/gm',
  'evidence/interpreter-code.ts /(?:require|import)\\s*\\(\\s*[\'"](\\.{1,2}\\/[^\'"]+)[\'"]|\\bfrom\\s*[\'"](\\.{1,2}\\/[^\'"]+)[\'"]|^\\s*import\\s*[\'"](\\.{1,2}\\/[^\'"]+)[\'"]/gm',
  'evidence/interpreter-code.ts /\\brequire_relative\\s*\\(?\\s*[\'"]([^\'"]+)[\'"]/g',
  'evidence/content-scan.ts /=+$/',
  'evidence/assess.ts /\\/+$/',
  'pending.ts /^\\s*(✅|👍|yes|y|ok|okay|approve[d]?|go( ahead)?|proceed|do it|lgtm)\\s*[.!]*\\s*$/i',
  "pending.ts /^\\s*(❌|👎|no|n|deny|denied|cancel|stop|don'?t)\\s*[.!]*\\s*$/i",
  'reader/generated.ts /\\/+$/',
  'scripts.ts /[\\d.]+$/',
  'makefile.ts /^(?:export[ \\t]+|override[ \\t]+)*([A-Za-z_][\\w.-]*)[ \\t]*(:::=|::=|:=|\\?=|\\+=|!=|=)[ \\t]*(.*)$/',
  'serve/judge.ts /\\/+$/',
])

/** classify()'s answer on each adversarial command of redos-fuzz.ts: the patterns it finds, and whether it read the command whole. */
const BASH_ANSWERS: [string, string[], boolean][] = [
  ['the 85-character snippet that once hung the hook', ['unreadable'], true],
  ['a command word of many $NAMEs before a slash', ['unreadable'], false],
  ['node snippet with a run of backslashes', ['unreadable'], true],
  ['python snippet with a run of escaped quotes', ['unreadable'], true],
  ['snippet with many unclosed calls', ['unreadable'], true],
  ['snippet with many open quotes', ['unreadable'], true],
  ['100 KB of spaces', [], false],
  ['100 KB of newlines', [], false],
  ['100 KB of tabs and spaces', [], false],
  ['100 KB of one word', [], false],
  ['nested quotes', ['unreadable'], true],
  ['escaped quotes', [], false],
  ['backslashes', [], false],
  ['unclosed $( \u00d7', ['unreadable'], true],
  ['closed $( ) nesting', ['file_delete', 'unreadable'], true],
  ['${ nesting', ['unreadable'], true],
  ['$(( nesting', ['unreadable'], true],
  ['array nesting', ['unreadable'], true],
  ['process substitution nesting', ['unreadable'], true],
  ['backticks', ['unreadable'], false],
  ['pipes', ['unreadable'], true],
  ['operators', [], false],
  ['redirections', ['stale_write', 'unreadable'], true],
  ['heredoc markers', ['unreadable'], true],
  ['heredocs without end', ['unreadable'], true],
  ['bash -c nesting', [], false],
  ['eval nesting', ['file_delete', 'unreadable'], true],
  ['sudo chains', ['file_delete', 'unreadable'], false],
  ['env -S chains', ['unreadable'], false],
  ['find -exec chains', ['file_delete', 'unreadable'], true],
  ['xargs chains', ['unreadable'], false],
  ['variables', ['unreadable'], true],
  ['for loops', ['unreadable'], true],
  ['function definitions', ['unreadable'], true],
  ['aliases', ['unreadable'], true],
  ['git aliases', [], false],
  ['curl data flags', ['http_upload'], false],
  ['URLs', [], false],
  ['SQL fragments', ['unreadable'], true],
  ['secret-looking text', [], false],
  ['token shapes', [], false],
  ['bearer', [], false],
  ['PEM openers', [], false],
  ['URL credentials', [], false],
  ['over the size limit', ['file_delete', 'unreadable'], true],
]

/** classify()'s answer on each 100 KB tool call of redos-fuzz.ts, in its order. */
const TOOL_ANSWERS: [string, string[], boolean][] = [
  ['Write file_path,content', ['stale_write', 'timezone_dependent_action'], false],
  ['Write file_path,content', ['stale_write'], false],
  ['Edit file_path,old_string,new_string', ['stale_write'], false],
  ['WebFetch url,prompt', ['unrequested_web'], false],
  ['mcp__fs__write_file path,content', ['outside_project', 'stale_write'], false],
  ['mcp__shell__run command', ['unreadable'], true],
]

interface Line {
  case?: string
  count?: number
  linear?: number
  wrong?: string
  expected?: string
  patterns?: string[]
  incomplete?: boolean
  masked?: boolean
  unreadable?: boolean
  done?: boolean
}

// Asynchronous on purpose: the regex suite can take minutes on a loaded machine, and a spawnSync that long
// blocks the test worker's event loop past vitest's 60 s progress-RPC timer ("Timeout calling onTaskUpdate"),
// which fails the whole run although every test passed.
function run(suite: string, hangBoundMs: number): Promise<{ lines: Line[]; hung?: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-experimental-regexp-engine', '--import', 'tsx', FUZZ, suite], {
      cwd: path.join(__dirname, '../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let killed = false
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => {
      killed = true
      child.kill('SIGKILL')
    }, hangBoundMs)
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      const lines = stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line)
      if (status === 0) return resolve({ lines })
      const last = [...lines].reverse().find((l) => l.case)
      const why = killed
        ? `still running after ${hangBoundMs} ms (signal ${signal})`
        : `exit ${status}, signal ${signal}: ${stderr.slice(-500)}`
      resolve({ lines, hung: `${why} — on ${last?.case ?? '(start)'}` })
    })
  })
}

/** The answers a suite gave, one per case: the lines that say more than the case's name. */
const answers = (lines: Line[], prefix: string) =>
  lines.filter((l) => l.case?.startsWith(prefix) && Object.keys(l).length > 1)

describe('no regex literal in lib/core can backtrack catastrophically (structural analysis)', () => {
  const found = regexLiterals()
  const analysed = found.map((f) => ({ ...f, reports: analyse(new RegExpParser().parseLiteral(f.literal)).reports }))

  it('the TypeScript parser finds the regex literals', () => {
    expect(found.length).toBeGreaterThan(100)
  })

  it('none can backtrack exponentially', () => {
    expect(analysed.filter((a) => a.reports.some((r) => r.exponential)).map((a) => a.where)).toEqual([])
  })

  it('the ones that can backtrack polynomially are the listed ones, each still in the code', () => {
    const polynomial = new Set(
      analysed.filter((a) => a.reports.length).map((a) => `${a.where.split(':')[0]} ${a.literal}`),
    )
    expect([...polynomial].filter((k) => !POLYNOMIAL.has(k))).toEqual([])
    expect([...POLYNOMIAL].filter((k) => !polynomial.has(k))).toEqual([])
  })

  it('the analysis tells a catastrophic regex from its linear rewrite', () => {
    const reports = (literal: string) => analyse(new RegExpParser().parseLiteral(literal)).reports
    expect(reports('/^(?:[^$`]|\\$[A-Za-z_]\\w*)*$/').some((r) => r.exponential)).toBe(true)
    expect(reports('/^(?:[^$`]|\\$[A-Za-z_]\\w*(?!\\w))*$/')).toEqual([])
    expect(reports('/\\/+$/').length).toBeGreaterThan(0)
  })
})

describe('adversarial input: the right answers, with only a bound that catches a hang', () => {
  it('every regex literal in lib/core agrees with the linear-time engine on input built from its own fragments', async () => {
    const { lines, hung } = await run('regexes', 600_000)
    expect(hung).toBeUndefined()
    expect(lines[0].count).toBeGreaterThan(100)
    // Most of them: the linear engine runs no backreference, lookaround, `i` or `u` flag.
    expect(lines[0].linear).toBeGreaterThan(lines[0].count! / 2)
    expect(lines.filter((l) => l.wrong !== undefined)).toEqual([])
    expect(lines.at(-1)).toEqual({ done: true })
  }, 660_000)

  it('classify(), maskSecrets, parseShell and readCommandLine answer every adversarial command (up to 300 KB)', async () => {
    const { lines, hung } = await run('commands', 300_000)
    expect(hung).toBeUndefined()
    expect(answers(lines, 'Bash: ').map((l) => [l.case!.slice(6), l.patterns, l.incomplete])).toEqual(BASH_ANSWERS)
    for (const name of ['maskSecrets', 'parseShell', 'readCommandLine'])
      expect(answers(lines, `${name}: `)).toHaveLength(BASH_ANSWERS.length)
    expect(answers(lines, 'readCommandLine: over the size limit')).toEqual([
      { case: 'readCommandLine: over the size limit', unreadable: true },
    ])
    expect(lines.at(-1)).toEqual({ done: true })
  }, 330_000)

  it('classify() answers 100 KB fields of Write, Edit, WebFetch and MCP calls', async () => {
    const { lines, hung } = await run('tools', 120_000)
    expect(hung).toBeUndefined()
    expect(answers(lines, '').map((l) => [l.case, l.patterns, l.incomplete])).toEqual(TOOL_ANSWERS)
  }, 150_000)

  it('an oversized command is flagged as unreadable, not scanned', () => {
    const r = readCommandLine('git push; '.repeat(30_000))
    expect(r.invocations).toEqual([])
    expect(r.unreadable.join(' ')).toMatch(/too long to read/)
  })

  it('nesting past the limit is flagged as unreadable', () => {
    expect(readCommandLine('echo ' + '$(echo '.repeat(9) + 'rm x' + ')'.repeat(9)).unreadable.join(' ')).toMatch(
      /nested more than 8/,
    )
    expect(readCommandLine('echo ' + '$(echo '.repeat(7) + 'rm x' + ')'.repeat(7)).unreadable).toEqual([])
    let code = 'rm x'
    for (let i = 0; i < 7; i++) code = `bash -c ${JSON.stringify(code)}`
    expect(readCommandLine(code).unreadable.join(' ')).toMatch(/nested more than/)
  })
})
