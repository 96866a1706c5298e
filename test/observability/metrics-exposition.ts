// A strict parser of the Prometheus text exposition format (0.0.4), for the metrics tests: any line it
// does not understand, a sample of an undeclared family, or a histogram whose buckets do not add up
// is an error, so a malformed /metrics fails the test.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** The sum of the samples of `name` whose labels include `match`. */
  sum(name: string, match?: Record<string, string>): number;
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const suffixes: Record<string, string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

function parseValue(text: string, line: string): number {
  // As Prometheus reads them (Go's ParseFloat): Inf and NaN in any case; prom-client writes NaN as `Nan`.
  if (/^\+?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value in: ${line}`);
  return Number(text);
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const m = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/.exec(rest);
    if (!m) throw new Error(`bad labels in: ${line}`);
    if (!labelName.test(m[1]!) || m[1]! in labels) throw new Error(`bad or repeated label ${m[1]} in: ${line}`);
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(m[0].length);
  }
  return labels;
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: Sample[] = [];
  const familyOf = (name: string): string | undefined => {
    for (const [family, type] of types) if (suffixes[type]!.some((s) => family + s === name)) return family;
    return undefined;
  };
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) {
      const name = line.slice(7).split(' ')[0]!;
      if (!metricName.test(name) || helps.has(name)) throw new Error(`bad or repeated HELP: ${line}`);
      helps.add(name);
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [name, type, ...extra] = line.slice(7).split(' ');
      if (!metricName.test(name!) || !(type! in suffixes) || extra.length || types.has(name!)) throw new Error(`bad TYPE: ${line}`);
      types.set(name!, type!);
      continue;
    }
    if (line.startsWith('#')) continue; // a comment
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ([^ ]+)(?: (-?\d+))?$/.exec(line);
    if (!m) throw new Error(`not a sample: ${line}`);
    const name = m[1]!;
    if (!familyOf(name)) throw new Error(`sample of an undeclared family: ${line}`);
    samples.push({ name, labels: parseLabels(m[2] ?? '', line), value: parseValue(m[3]!, line) });
  }
  checkHistograms(types, samples);
  const matches = (s: Sample, match: Record<string, string>) => Object.entries(match).every(([k, v]) => s.labels[k] === v);
  return {
    types,
    samples,
    sum: (name, match = {}) => samples.filter((s) => s.name === name && matches(s, match)).reduce((a, s) => a + s.value, 0),
  };
}

/** Each histogram series: buckets cumulative, ending at +Inf, which equals its _count. */
function checkHistograms(types: Map<string, string>, samples: Sample[]): void {
  for (const [family, type] of types) {
    if (type !== 'histogram') continue;
    const series = new Map<string, { buckets: [number, number][]; count?: number }>();
    const keyOf = (labels: Record<string, string>) =>
      JSON.stringify(
        Object.entries(labels)
          .filter(([k]) => k !== 'le')
          .sort(),
      );
    for (const s of samples) {
      if (s.name !== `${family}_bucket` && s.name !== `${family}_count`) continue;
      const entry = series.get(keyOf(s.labels)) ?? { buckets: [] };
      if (s.name.endsWith('_bucket')) entry.buckets.push([parseValue(s.labels.le ?? 'x', `le of ${family}`), s.value]);
      else entry.count = s.value;
      series.set(keyOf(s.labels), entry);
    }
    for (const [key, { buckets, count }] of series) {
      buckets.sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < buckets.length; i++)
        if (buckets[i]![1] < buckets[i - 1]![1]) throw new Error(`${family}${key}: buckets not cumulative`);
      const last = buckets.at(-1);
      if (!last || last[0] !== Infinity || last[1] !== count)
        throw new Error(`${family}${key}: +Inf bucket missing or not equal to _count`);
    }
  }
}
