// The reader's table of wrapper families (lib/core/reader/peelers): each program is peeled by one family, and a
// word that is not a program finds no peeler (the table is keyed by words the agent types).
import { describe, expect, it } from 'vitest'
import { PEELERS, READER_FAMILIES } from '../../lib/core/reader/peelers'
import { readCommandLine } from '../../lib/core/commands'

describe('the reader table', () => {
  it('names each program in one family only', () => {
    const owner = new Map<string, string>()
    const twice: string[] = []
    for (const f of READER_FAMILIES)
      for (const name of Object.keys(f.programs)) {
        if (owner.has(name)) twice.push(`${name}: ${owner.get(name)} and ${f.family}`)
        owner.set(name, f.family)
      }
    expect(twice).toEqual([])
  })

  it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])(
    'finds no peeler for %s, and reads it as a plain program',
    (word) => {
      expect(PEELERS[word]).toBeUndefined()
      expect(readCommandLine(`${word} rm -rf x`).invocations.map((i) => i.name)).toEqual([word])
    },
  )

  it.each([
    ['sudo env nice timeout 5 rm -rf x', 'rm', ['sudo', 'env', 'nice', 'timeout']],
    ['docker exec c sh -c "rm -rf x"', 'rm', ['docker exec', 'sh -c']],
    ['find . -exec rm {} ;', 'rm', ['find -exec']],
    ['poetry run python -m twine upload', 'twine', ['poetry run', 'python -m']],
  ])('peels %s down to the program it runs', (command, program, via) => {
    const inv = readCommandLine(command).invocations.find((i) => i.name === program)
    expect(inv?.via).toEqual(via)
  })
})
