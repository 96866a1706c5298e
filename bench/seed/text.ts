// Deterministic text for seeded artifacts: titles and bodies drawn from a vocabulary with a Zipf-like
// frequency (a few words common, a long tail rare, as in people's notes), so the lexical index holds
// a realistic spread of terms and postings. The same seed gives the same store.

/** A small, fast deterministic generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const common = `the of and to in a is that for it as with was on be by this are from or at an have not which but
has were they their one all can more will been would there what about when into other some time only also its new
than first two may these over after work team plan project data report review budget quarter customer product design
release meeting notes decision risk issue goal summary draft policy process service system model market sales cost
price contract support request account user access security incident change update feature test result analysis
research document page source figure table section chapter version schedule deadline owner status priority action`
  .split(/\s+/)
  .filter(Boolean);

const stems = `alpha bravo cargo delta ember falcon garnet harbor indigo juniper kestrel lantern meadow nimbus orchid
pylon quartz raven saffron tundra umber vortex willow xenon yarrow zephyr anchor basalt cedar dynamo ember fjord
glacier helix iris jasper krypton lotus mistral nectar onyx prism quill rook sierra talon ultra vela wren yonder
zenith atlas beacon comet drift echo flint grove haven ion jet kite lumen mesa nova orbit pike quest ridge spire
tide unity vale wisp yield`
  .split(/\s+/)
  .filter(Boolean);

/**
 * The vocabulary: common words first (most frequent), then made-up project and product names and a
 * long tail of rarer coined words, about 20,000 distinct terms in all.
 */
function vocabulary(): string[] {
  const words = [...common, ...stems];
  const suffixes = ['', 'ing', 'ed', 'er', 'ly', 'ion', 'al', 'ness', 'ment', 'ive'];
  for (const s of stems) for (const t of stems) if (words.length < 12_000) words.push(`${s}${t}`);
  for (let i = 0; words.length < 20_000; i++) words.push(`${stems[i % stems.length]}${suffixes[i % suffixes.length]}${i}`);
  return words;
}

const vocab = vocabulary();
/** Cumulative Zipf weights (s = 1.05) over the vocabulary, for sampling by binary search. */
const cumulative = (() => {
  const out = new Float64Array(vocab.length);
  let sum = 0;
  for (let i = 0; i < vocab.length; i++) out[i] = sum += 1 / Math.pow(i + 1, 1.05);
  for (let i = 0; i < vocab.length; i++) out[i]! /= sum;
  return out;
})();

export function word(random: () => number): string {
  const x = random();
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return vocab[lo]!;
}

export function words(random: () => number, n: number): string[] {
  return Array.from({ length: n }, () => word(random));
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function title(random: () => number, n: number): string {
  return cap(words(random, 3 + Math.floor(random() * 5)).join(' ')) + ` ${n}`;
}

/** A body of 40–260 words in sentences; markdown gets a heading and a list, as notes have. */
export function body(random: () => number, contentType: string, heading: string): string {
  const sentences: string[] = [];
  const total = 40 + Math.floor(random() * 220);
  for (let used = 0; used < total;) {
    const n = 6 + Math.floor(random() * 14);
    sentences.push(cap(words(random, n).join(' ')) + '.');
    used += n;
  }
  if (contentType === 'application/json')
    return JSON.stringify({ title: heading, tags: words(random, 3), notes: sentences.slice(0, 4).join(' ') });
  if (contentType !== 'text/markdown') return sentences.join(' ');
  const half = Math.ceil(sentences.length / 2);
  const items = words(random, 3).map((w) => `- ${cap(w)} ${word(random)}`);
  return `# ${heading}\n\n${sentences.slice(0, half).join(' ')}\n\n${items.join('\n')}\n\n${sentences.slice(half).join(' ')}\n`;
}

/** A search query people might type: two or three words of the vocabulary's frequent middle. */
export function query(random: () => number): string {
  return Array.from({ length: 2 + Math.floor(random() * 2) }, () => vocab[20 + Math.floor(random() * 600)]!).join(' ');
}
