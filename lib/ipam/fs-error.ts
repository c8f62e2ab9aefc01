// File-system errors in Go's words ("open /x: no such file or directory"), as the reference
// reports them, keeping Node's error as the cause.

export function goFsError(err: unknown, op: string, path: string): Error {
  const e = err as NodeJS.ErrnoException;
  // Node: "ENOENT: no such file or directory, open '/x'"
  const what = /^[A-Z0-9_]+: ([^,]+),/.exec(e?.message ?? '')?.[1] ?? String(e?.message ?? err);
  const out = new Error(`${op} ${path}: ${what}`, { cause: err });
  return out;
}

export const isErrno = (err: unknown, code: string): boolean => (err as NodeJS.ErrnoException | undefined)?.code === code;
