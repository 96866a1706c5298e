import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;
const params = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const keyLength = 32;

/** scrypt calls at once (each holds 32 MiB and a libuv thread), and how many may wait behind them. */
const maxRunning = 2;
const maxWaiting = 64;
let running = 0;
const waiting: (() => void)[] = [];

/** Too many sign-ins or token exchanges are being checked at once: the caller should retry later. */
export class PasswordCheckBusy extends Error {}

/**
 * Bounds the unauthenticated scrypt work (login, token exchange): a flood waits in a short queue, and
 * past it is refused at once, instead of exhausting memory and the thread pool other I/O needs.
 */
async function bounded<T>(work: () => Promise<T>): Promise<T> {
  if (running >= maxRunning) {
    if (waiting.length >= maxWaiting) throw new PasswordCheckBusy('too many credential checks in progress');
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** scrypt (N=2^15, r=8, p=1), stored as `scrypt$N$r$p$salt$hash` so the cost can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, keyLength, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/**
 * A hash no password matches, for an account that signs in elsewhere (an external identity provider):
 * the stored form of a real hash (so a password login costs the same scrypt work as for any account,
 * and timing tells nothing) but with a random digest, whose preimage nobody has. Costs no scrypt.
 */
export function unusablePasswordHash(): string {
  return ['scrypt', params.N, params.r, params.p, randomBytes(16).toString('base64'), randomBytes(keyLength).toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await bounded(() =>
    scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: params.maxmem,
    }),
  );
  return timingSafeEqual(actual, expected);
}

/** A hash of a random password, verified against when the e-mail is unknown, so timing does not tell. */
export const decoyHash = hashPassword(randomBytes(16).toString('hex'));
