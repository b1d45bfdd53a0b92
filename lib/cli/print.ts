// What a command that changes something prints: with --json, one JSON document a script can read; else the lines
// a human reads. Listing commands build their own JSON (they have more to say).

export interface JsonOption {
  json?: boolean
}

export function emit(o: JsonOption | undefined, data: Record<string, unknown>, text: string | string[]): void {
  process.stdout.write(
    o?.json
      ? JSON.stringify(data, null, 2) + '\n'
      : [text]
          .flat()
          .map((l) => l + '\n')
          .join(''),
  )
}
