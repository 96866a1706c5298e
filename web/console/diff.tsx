// A unified diff shown as text (the commit page's, an artifact's history): one span per line, classed
// for + and -, never parsed as HTML.

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('===') || line.startsWith('Index:')) return 'diff-file';
  if (line.startsWith('@@')) return 'diff-hunk';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-del';
  if (line.startsWith('\\')) return 'diff-note';
  return 'diff-ctx';
}

/** A unified diff as text, one span per line, classed for + and -: never parsed as HTML. */
export function Diff({ diff, label }: { diff: string; label: string }) {
  const lines = diff.replace(/\n$/, '').split('\n');
  return (
    <pre class="diff" aria-label={label} tabIndex={0}>
      {lines.map((line, i) => (
        <span key={i} class={lineClass(line)}>
          {line + '\n'}
        </span>
      ))}
    </pre>
  );
}
