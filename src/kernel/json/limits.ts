/**
 * What JSON the platform accepts (docs/decisions.md, "Free-form JSON"). Bodies and typed content are
 * bounded in depth; free-form objects that are stored as documents (artifact `context`, container
 * `metadata`, agents' proposed context) must also be storable by every MongoDB-wire server we run.
 * Checked by an explicit stack, never by recursion, so any depth is safe to inspect.
 */
export const jsonLimits = {
  /** Any JSON body: room for an envelope (JSON-RPC, a tool's arguments) around a stored object. */
  bodyDepth: 64,
  /** A stored free-form object, or typed content: well under MongoDB's 100 levels. */
  storedDepth: 32,
  /** Values (keys' values, array items, the object itself) in one stored free-form object. */
  storedValues: 10_000,
  keyLength: 200,
} as const;

export interface JsonRules {
  maxDepth: number;
  /** Strings and keys are text: no U+0000 (PostgreSQL cannot store it), no unpaired surrogate (UTF-8 cannot encode it). */
  text?: boolean;
  /** Stored as a document: storable keys, no array directly inside an array, finite numbers, at most storedValues values. */
  storable?: boolean;
}

export interface JsonViolation {
  path: (string | number)[];
  reason: string;
}

/** Keys a consumer merging objects could mistake for the prototype chain. */
const reservedKeys = new Set(['__proto__', 'constructor', 'prototype']);

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string is not text, or null. */
export function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'contains U+0000 (NUL)';
  if (loneSurrogate.test(value)) return 'contains an unpaired surrogate (not valid Unicode)';
  return null;
}

/** Why a key cannot be stored as a document field name, or null. */
export function storableKeyProblem(key: string): string | null {
  if (key.length === 0 || key.length > jsonLimits.keyLength) return `keys are 1 to ${jsonLimits.keyLength} characters`;
  if (key.startsWith('$')) return "keys must not start with '$'";
  if (key.includes('.')) return "keys must not contain '.'";
  if (reservedKeys.has(key)) return `${key} is a reserved key`;
  return textProblem(key);
}

interface Node {
  value: unknown;
  key: string | number | null;
  parent: Node | null;
  depth: number;
  inArray: boolean;
}

function pathOf(node: Node): (string | number)[] {
  const path: (string | number)[] = [];
  for (let n: Node | null = node; n && n.key !== null; n = n.parent) path.unshift(n.key);
  return path;
}

function keyProblem(key: string, rules: JsonRules): string | null {
  return rules.storable ? storableKeyProblem(key) : rules.text ? textProblem(key) : null;
}

function scalarProblem(value: unknown, rules: JsonRules): string | null {
  if (typeof value === 'string') return rules.text || rules.storable ? textProblem(value) : null;
  if (typeof value === 'number' && rules.storable && !Number.isFinite(value)) return 'must be a finite number';
  return null;
}

/** The first value of `value` that breaks the rules (its path relative to `value`), or null. */
export function jsonViolation(value: unknown, rules: JsonRules): JsonViolation | null {
  const stack: Node[] = [{ value, key: null, parent: null, depth: 0, inArray: false }];
  let count = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    const fail = (reason: string, at: Node = node): JsonViolation => ({ path: pathOf(at), reason });
    if (rules.storable && ++count > jsonLimits.storedValues)
      return { path: [], reason: `holds more than ${jsonLimits.storedValues} values` };
    const v = node.value;
    if (v === null || typeof v !== 'object') {
      const problem = scalarProblem(v, rules);
      if (problem) return fail(problem);
      continue;
    }
    const depth = node.depth + 1;
    if (depth > rules.maxDepth) return fail(`nests deeper than ${rules.maxDepth} levels`);
    if (Array.isArray(v)) {
      if (rules.storable && node.inArray) return fail('arrays directly inside arrays cannot be stored');
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: node, depth, inArray: true });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const child: Node = { value: (v as Record<string, unknown>)[key], key, parent: node, depth, inArray: false };
      const problem = keyProblem(key, rules);
      if (problem) return fail(problem, child);
      stack.push(child);
    }
  }
  return null;
}

/** A path cut after a few segments when it runs deep, so that a problem names the field, not 10,000 keys. */
export function shortPath(path: (string | number)[], room = 8): (string | number)[] {
  return path.length > room ? [...path.slice(0, room), '…'] : path;
}

/** A path as invalid params name it: dotted, and short. */
export function pathName(path: (string | number)[], prefix: (string | number)[] = []): string {
  return shortPath([...prefix, ...path]).join('.');
}
