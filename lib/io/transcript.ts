// A bounded excerpt of a Claude Code transcript for the reviewer. Streams the JSONL (transcripts
// grow to many MB): keeps only the most recent turns within a character budget. The transcript is
// written asynchronously and has no schema: unknown line types and a partial last line are skipped.

import fs from 'node:fs'
import readline from 'node:readline'

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s)
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()

type Block = { type?: string; text?: string; name?: string; input?: unknown; content?: unknown; is_error?: boolean }

/** One transcript line → zero or more short lines for the excerpt. */
export function renderLine(raw: string): string[] {
  let j: { type?: string; isSidechain?: boolean; message?: { role?: string; content?: unknown } }
  try {
    j = JSON.parse(raw)
  } catch {
    return []
  }
  if ((j.type !== 'user' && j.type !== 'assistant') || !j.message) return []
  const content = j.message.content
  if (typeof content === 'string')
    return j.type === 'user' ? [`USER: ${clip(oneLine(content), 600)}`] : [`ASSISTANT: ${clip(oneLine(content), 400)}`]
  if (!Array.isArray(content)) return []
  const out: string[] = []
  for (const b of content as Block[]) {
    if (b.type === 'text' && b.text)
      out.push(`${j.type === 'user' ? 'USER' : 'ASSISTANT'}: ${clip(oneLine(b.text), 400)}`)
    else if (b.type === 'tool_use')
      out.push(`TOOL CALL ${b.name}: ${clip(oneLine(JSON.stringify(b.input ?? {})), 300)}`)
    else if (b.type === 'tool_result') {
      const text =
        typeof b.content === 'string'
          ? b.content
          : Array.isArray(b.content)
            ? (b.content as Block[]).map((x) => x.text ?? '').join(' ')
            : ''
      out.push(`TOOL RESULT${b.is_error ? ' (error)' : ''}: ${clip(oneLine(text), 300)}`)
    }
  }
  return out
}

/** The most recent lines whose total length fits `maxChars` (about 4 characters per token). */
export async function transcriptExcerpt(file: string, maxChars: number): Promise<string> {
  let stream: fs.ReadStream
  try {
    // Non-blocking, and only a regular file: a FIFO at the transcript's path would hang the reviewer.
    const fh = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    if (!(await fh.stat()).isFile()) {
      await fh.close()
      return '(transcript is not a regular file: not read)'
    }
    stream = fh.createReadStream({ encoding: 'utf8' })
  } catch {
    return '(transcript not available yet)'
  }
  const kept: string[] = []
  let size = 0
  const rl = readline.createInterface({ input: stream, crlfDelay: Infinity })
  for await (const raw of rl) {
    for (const line of renderLine(raw)) {
      kept.push(line)
      size += line.length + 1
      while (size > maxChars && kept.length > 1) size -= kept.shift()!.length + 1
    }
  }
  return kept.length ? kept.join('\n') : '(transcript empty)'
}
