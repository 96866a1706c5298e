// A publisher for the stream tests: Debian's ffmpeg sending a generated test pattern over RTMP.
import { spawn } from 'node:child_process';

/** ffmpeg publishing `seconds` of test pattern and tone to `url` (H.264/AAC, a key frame a second), or serving it there. */
export function publish(url: string, seconds: number, options: { serve?: boolean } = {}): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-re',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x120:rate=10',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:sample_rate=44100',
      '-t',
      String(seconds),
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-g',
      '10',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-f',
      'flv',
      // serve: an RTMP server of its own that a player (the platform, pulling) connects to.
      ...(options.serve ? ['-listen', '1'] : []),
      url,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}
