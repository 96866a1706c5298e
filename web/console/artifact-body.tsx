// An artifact's content by its type: markdown as elements (./markdown, never HTML), JSON pretty-printed,
// PDF, images, audio and video in the browser's own players from a blob: URL of the decoded bytes,
// anything else as text.
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Artifact } from './browse-api';
import { maxMarkdownLength, renderMarkdown } from './markdown';

/** `text/markdown; charset=utf-8` → `text/markdown`. */
export const baseType = (contentType: string) => (contentType.split(';')[0] ?? '').trim().toLowerCase();

const isJson = (type: string) => type === 'application/json' || type.endsWith('+json');
const isMarkdown = (type: string) => type === 'text/markdown' || type === 'text/x-markdown';
/** Types the browser plays itself; the blob carries the type, so it is never HTML or script. */
const mediaKind = (type: string): 'image' | 'audio' | 'video' | 'pdf' | null =>
  type === 'application/pdf'
    ? 'pdf'
    : ((/^(image|audio|video)\/[a-z0-9.+-]+$/.exec(type)?.[1] as 'image' | 'audio' | 'video' | undefined) ?? null);

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The artifact's bytes. Content is text: binary content is stored base64 (an imported resource says so
 * in `context.imported_from.encoding`), with or without padding; a `data:…;base64,` URL is accepted
 * too. Content that is not base64 (an SVG written by hand) is its own UTF-8 bytes.
 */
export function bytesOf(artifact: Artifact): Uint8Array {
  const content = artifact.content;
  const data = /^data:[^,]*;base64,/i.exec(content);
  const packed = (data ? content.slice(data[0].length) : content).replace(/\s+/g, '');
  if (packed.length > 0 && base64.test(packed)) {
    try {
      return Uint8Array.from(atob(packed), (ch) => ch.charCodeAt(0));
    } catch {
      // not base64 after all (a length no encoder makes): its text
    }
  }
  return new TextEncoder().encode(content);
}

function Media({ artifact, kind, type }: { artifact: Artifact; kind: 'image' | 'audio' | 'video' | 'pdf'; type: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const made = URL.createObjectURL(new Blob([bytesOf(artifact) as BlobPart], { type }));
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [artifact.content, type]);
  if (!url) return null;
  const label = artifact.title;
  return (
    <figure class={`media media-${kind}`}>
      {kind === 'image' && <img src={url} alt={label} />}
      {kind === 'audio' && <audio src={url} controls aria-label={label} />}
      {kind === 'video' && <video src={url} controls aria-label={label} />}
      {kind === 'pdf' && <iframe src={url} title={label} class="pdf" />}
      {/* No link to an SVG: opened as a page, its scripts would be the console's. */}
      {type !== 'image/svg+xml' && (
        <figcaption>
          <a href={url} download={label}>
            Download
          </a>
        </figcaption>
      )}
    </figure>
  );
}

function Markdown({ source }: { source: string }) {
  const nodes = useMemo(() => renderMarkdown(source), [source]);
  return <div class="markdown">{nodes}</div>;
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function ArtifactBody({ artifact }: { artifact: Artifact }) {
  const type = baseType(artifact.content_type);
  const media = mediaKind(type);
  if (media) return <Media artifact={artifact} kind={media} type={type} />;
  if (isMarkdown(type) && artifact.content.length <= maxMarkdownLength) return <Markdown source={artifact.content} />;
  if (isJson(type))
    return (
      <pre class="content json" tabIndex={0} aria-label="Content (JSON)">
        {pretty(artifact.content)}
      </pre>
    );
  return (
    <pre class="content text" tabIndex={0} aria-label="Content">
      {artifact.content}
    </pre>
  );
}
