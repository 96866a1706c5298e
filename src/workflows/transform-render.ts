// A transform step's templates, filled in: all the transform workflow needs of the transform schema's
// module (artifacts/content-types/transform.ts). That module builds zod schemas when evaluated, and every
// workflow the worker creates evaluates the modules its bundle imports afresh: ≈ 8 ms of CPU per
// workflow, invocations included (issue #23).

/** Strings of a step's input with {{input}} and {{steps.<id>.output}} filled in (deterministic: workflow code uses it). */
export function render<T>(value: T, vars: { input: string | null; outputs: Record<string, string | null> }): T {
  if (typeof value === 'string') {
    return value.replace(/\{\{\s*(input|steps\.([a-z][a-z0-9_-]*)\.output)\s*\}\}/g, (_, whole: string, step?: string) =>
      step ? (vars.outputs[step] ?? '') : (vars.input ?? ''),
    ) as T;
  }
  if (Array.isArray(value)) return value.map((v) => render(v, vars)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v, vars)])) as T;
  return value;
}
