// The modes state is created with: files 0600, folders 0700 (secrets never readable by other users). Apart
// from the registry so the store's primitives can use them without loading it (see lib/io/store.ts).
export const FILE_MODE = 0o600
export const DIR_MODE = 0o700
