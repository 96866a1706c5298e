// What a recorded file holds, by ffprobe: container, duration, and each stream's codec and shape.
import { spawnMedia } from './process.js';

export interface MediaSummary {
  format: string | null;
  duration_seconds: number | null;
  bit_rate: number | null;
  video: { codec: string; width: number | null; height: number | null; frame_rate: string | null; pixel_format: string | null } | null;
  audio: { codec: string; sample_rate: number | null; channels: number | null } | null;
}

const num = (v: unknown): number | null => {
  const n = typeof v === 'string' || typeof v === 'number' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
};
const str = (v: unknown): string | null => (typeof v === 'string' && v.length <= 200 ? v : null);

/** Probes `path` within `deadlineMs`; null when ffprobe fails or says nothing usable. */
export async function probe(ffprobePath: string, path: string, deadlineMs = 15_000): Promise<MediaSummary | null> {
  const proc = spawnMedia(ffprobePath, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '--', path], {
    stdout: true,
    stdoutMax: 256 * 1024,
  });
  const timer = setTimeout(() => void proc.stop(), deadlineMs);
  const { code } = await proc.exited;
  clearTimeout(timer);
  if (code !== 0) return null;
  let parsed: { format?: Record<string, unknown>; streams?: Record<string, unknown>[] };
  try {
    parsed = JSON.parse(proc.stdout()) as typeof parsed;
  } catch {
    return null;
  }
  const streams = Array.isArray(parsed.streams) ? parsed.streams : [];
  const v = streams.find((s) => s.codec_type === 'video');
  const a = streams.find((s) => s.codec_type === 'audio');
  return {
    format: str(parsed.format?.format_name),
    duration_seconds: num(parsed.format?.duration),
    bit_rate: num(parsed.format?.bit_rate),
    video: v
      ? {
          codec: str(v.codec_name) ?? 'unknown',
          width: num(v.width),
          height: num(v.height),
          frame_rate: str(v.avg_frame_rate) ?? str(v.r_frame_rate),
          pixel_format: str(v.pix_fmt),
        }
      : null,
    audio: a ? { codec: str(a.codec_name) ?? 'unknown', sample_rate: num(a.sample_rate), channels: num(a.channels) } : null,
  };
}
