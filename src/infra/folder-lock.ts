import { openSync, readFileSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { errorCode, isRecord } from '../guards';

/*
 * Why a lock file with a pid rather than an OS lock: Node has no flock(), and a lock that needs a
 * native addon or a helper process would have to be installed and kept alive too. So the holder
 * writes its pid (and its process start time, where /proc tells it) into a file made with O_EXCL,
 * and a lock whose process is gone is stale and taken over. The start time guards against pid
 * reuse: after a reboot an unrelated process may carry the old pid, and must not block a start.
 *
 * Taking over a stale lock is the only step that removes someone else's file, so it is done while
 * holding a second, short-lived file (`<lock>.break`, also made with O_EXCL): two starters that
 * both see the same stale lock cannot both remove it, and a starter can never remove a lock that
 * a live process has just made, because it checks again under the break file before removing.
 */

export interface LockHolder {
  pid: number;
  /** The holder's process start time (clock ticks since boot), where the OS tells it. */
  startTime?: number;
  /** A DynamoDB Local java process the holder runs on this folder, which may outlive it briefly. */
  childPid?: number;
  childStartTime?: number;
}

export class FolderInUseError extends Error {
  constructor(
    message: string,
    readonly holder: LockHolder,
  ) {
    super(message);
  }
}

/** The process start time from /proc (Linux), or undefined where there is no /proc. */
export function processStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return undefined;
  }
}

/** True when `pid` runs and, where both are known, started when the lock says it did. */
export function isAlive(pid: number | undefined, startTime?: number): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user, so it is alive.
    if (errorCode(error) !== 'EPERM') return false;
  }
  const now = processStartTime(pid);
  return startTime === undefined || now === undefined || now === startTime;
}

function readHolder(file: string): LockHolder | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // Missing, or half-written by a holder that is writing it right now.
    return undefined;
  }
  if (!isRecord(parsed) || typeof parsed.pid !== 'number') return undefined;
  const holder: LockHolder = { pid: parsed.pid };
  // Each field is taken only when it is a number, as lockFolder writes it.
  if (typeof parsed.startTime === 'number') holder.startTime = parsed.startTime;
  if (typeof parsed.childPid === 'number') holder.childPid = parsed.childPid;
  if (typeof parsed.childStartTime === 'number') holder.childStartTime = parsed.childStartTime;
  return holder;
}

function writeHolder(fd: number, holder: LockHolder): void {
  writeSync(fd, JSON.stringify(holder), 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface FolderLock {
  file: string;
  /** Records the pid of the child process that works on the folder (DynamoDB Local's java). */
  setChild(pid: number | undefined): void;
  /** Removes the lock if it is still this process's. */
  release(): void;
}

/**
 * Takes the lock on `folder` for this process, or throws FolderInUseError naming the process that
 * holds it. `what` names the folder's use in the message. When the holder has died but the
 * DynamoDB Local it started is still shutting down (its watchdog stops it within seconds), this
 * waits up to `childGraceMs` for it to go.
 */
export async function lockFolder(folder: string, what: string, childGraceMs = 10_000): Promise<FolderLock> {
  const file = join(folder, '.lock');
  const me: LockHolder = { pid: process.pid, startTime: processStartTime(process.pid) };
  const deadline = Date.now() + childGraceMs;
  for (;;) {
    try {
      const fd = openSync(file, 'wx', 0o644);
      writeHolder(fd, me);
      let closed = false;
      return {
        file,
        setChild(pid) {
          if (closed) return;
          me.childPid = pid;
          me.childStartTime = pid ? processStartTime(pid) : undefined;
          // Rewritten in place: the file stays ours throughout, so nobody sees it missing.
          const text = JSON.stringify(me);
          writeSync(fd, text.padEnd(256, ' '), 0);
        },
        release() {
          if (closed) return;
          closed = true;
          closeSync(fd);
          if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    }
    const holder = readHolder(file);
    if (holder && isAlive(holder.pid, holder.startTime)) {
      throw new FolderInUseError(
        `${what} ${folder} is in use by process ${holder.pid} (another server on the same data folder). ` +
          'Stop that server first, or set DATA_DIR to another folder.',
        holder,
      );
    }
    if (holder && isAlive(holder.childPid, holder.childStartTime)) {
      if (Date.now() > deadline) {
        throw new FolderInUseError(
          `${what} ${folder} is in use by DynamoDB Local (process ${holder.childPid}), left running by a server (process ${holder.pid}) that has ended. ` +
            `Stop it (kill ${holder.childPid}) and start again.`,
          holder,
        );
      }
      await sleep(200);
      continue;
    }
    if (!holder) {
      // Unreadable: either being written this instant, or left empty by a crash mid-write.
      const age = Date.now() - (statSafe(file)?.mtimeMs ?? 0);
      if (age < 2000) {
        await sleep(100);
        continue;
      }
    }
    breakStaleLock(file, holder);
    await sleep(20);
  }
}

function statSafe(file: string) {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

/** Removes `file` if it still holds the same stale holder, under the break file (see above). */
function breakStaleLock(file: string, stale: LockHolder | undefined): void {
  const breaker = `${file}.break`;
  let fd: number;
  try {
    fd = openSync(breaker, 'wx');
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    // Another starter is breaking it right now; a break file left by a crash is old and removed.
    const age = Date.now() - (statSafe(breaker)?.mtimeMs ?? Date.now());
    if (age > 5000) rmSync(breaker, { force: true });
    return;
  }
  try {
    const now = readHolder(file);
    const same = now?.pid === stale?.pid && now?.startTime === stale?.startTime;
    if (same) rmSync(file, { force: true });
  } finally {
    closeSync(fd);
    rmSync(breaker, { force: true });
  }
}
