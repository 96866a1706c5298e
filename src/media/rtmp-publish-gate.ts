// The stream key check that ffmpeg's RTMP listen mode does not make. libavformat's rtmpproto.c, as a
// server, only logs "App field don't match up" and "Unexpected stream X, expecting Y" and records
// whatever is published (tried with Debian's ffmpeg 5.1: a wrong key was recorded). So every client
// byte passes through this parser first: the handshake as it is, then the chunk stream message by
// message, and no byte of a message reaches ffmpeg before the message is whole and allowed. The
// stream name of releaseStream, FCPublish and publish must be the key; audio, video or data before
// the publish is accepted, a `play`, or an oversized message refuse the connection. Once the
// publish is accepted the rest passes untouched.
import { timingSafeEqual, createHash } from 'node:crypto';

/** C0 (version) + C1 + C2 of the RTMP handshake, 1 + 1536 + 1536 bytes, passed as they are. */
const handshakeBytes = 1 + 1536 + 1536;
/** Before the publish, messages are a few commands: anything larger is not a publisher's opening. */
const maxMessageBytes = 64 * 1024;
/** Bytes held back (unforwarded) at once: messages in progress on several chunk streams. */
const maxHeldBytes = 256 * 1024;
const maxChunkSize = 0x7fffffff;
// A publisher's opening (connect, releaseStream, FCPublish, createStream, publish, a few control
// messages) is under 2 KiB on two or three chunk streams. Anything far beyond that is refused before
// it can cost the worker's event loop anything: without these caps a client that does not know the
// key could open tens of thousands of chunk streams of empty messages.
/** Distinct chunk streams before the publish. */
const maxChunkStreams = 8;
/** Whole messages before the publish. */
const maxMessages = 32;
/** Chunk bytes (headers and bodies, after the handshake) before the publish. */
const maxOpeningBytes = 64 * 1024;

/** Message types allowed before the publish: protocol control (1-6) and commands (AMF3 17, AMF0 20). */
const controlTypes = new Set([1, 2, 3, 4, 5, 6]);
const commandTypes = new Set([17, 20]);
/** Commands that name the stream: each must name the key. */
const namingCommands = new Set(['releaseStream', 'FCPublish', 'publish']);
/** Commands a publisher never needs: the gate serves publishing only. */
const refusedCommands = new Set(['play', 'play2', 'seek', 'pause']);

export type GateVerdict = { state: 'pending' } | { state: 'accepted' } | { state: 'refused'; reason: string };

interface ChunkStream {
  length: number;
  type: number;
  timestamp: number;
  extended: boolean;
  /** Bytes of the message being assembled on this chunk stream. */
  parts: Buffer[];
  received: number;
}

const digest = (s: string | Buffer) => createHash('sha256').update(s).digest();

/** Compares without telling by its timing how much of the key matched. */
export function sameKey(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(Buffer.from(b, 'utf8')));
}

/** Reads the AMF0 values a command starts with: its name, then (for naming commands) the stream name. */
export function commandOf(body: Buffer, amf3: boolean): { name: string; streamName: string | null } | null {
  let at = amf3 ? 1 : 0; // an AMF3 command message starts with a 0 byte, then AMF0 values
  const str = (): string | null => {
    if (body[at] !== 0x02 || at + 3 > body.length) return null;
    const len = body.readUInt16BE(at + 1);
    if (at + 3 + len > body.length) return null;
    const s = body.subarray(at + 3, at + 3 + len).toString('utf8');
    at += 3 + len;
    return s;
  };
  const name = str();
  if (name === null) return null;
  if (!namingCommands.has(name)) return { name, streamName: null };
  if (body[at] !== 0x00 || at + 9 > body.length) return null; // transaction id (number)
  at += 9;
  if (body[at] !== 0x05) return null; // command object: null
  at += 1;
  return { name, streamName: str() };
}

/**
 * One client connection's bytes, until its publish is accepted or refused. `push` takes what the
 * client sent and answers what may go on to ffmpeg now and the verdict so far.
 */
export class PublishGate {
  private buffer: Buffer = Buffer.alloc(0);
  private handshakeLeft = handshakeBytes;
  private chunkSize = 128;
  private readonly streams = new Map<number, ChunkStream>();
  /** Parsed bytes not yet forwarded: a message in progress, or one just completed. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** Chunk streams with a message half-assembled: kept as a count so no chunk scans them all. */
  private inProgress = 0;
  private messages = 0;
  private openingBytes = 0;
  private verdict: GateVerdict = { state: 'pending' };

  constructor(private readonly key: string) {}

  push(data: Buffer): { forward: Buffer; verdict: GateVerdict } {
    if (this.verdict.state === 'accepted') return { forward: data, verdict: this.verdict };
    if (this.verdict.state === 'refused') return { forward: Buffer.alloc(0), verdict: this.verdict };
    const out: Buffer[] = [];
    let input = data;
    if (this.handshakeLeft > 0) {
      const take = Math.min(this.handshakeLeft, input.length);
      if (this.handshakeLeft === handshakeBytes && take > 0 && input[0] !== 3) return this.refuse('not an RTMP handshake');
      out.push(input.subarray(0, take));
      this.handshakeLeft -= take;
      input = input.subarray(take);
    }
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, input]) : input;
    for (;;) {
      const step = this.chunk();
      if (step === 'more') break;
      if (this.state() === 'refused') return { forward: Buffer.alloc(0), verdict: this.verdict };
      // Nothing half-assembled: what was held is whole, allowed messages, and may go on.
      if (this.inProgress === 0) {
        out.push(...this.held);
        this.held = [];
        this.heldBytes = 0;
      }
      if (this.state() === 'accepted') {
        out.push(...this.held, this.buffer); // the rest of this read passes untouched
        this.held = [];
        this.buffer = Buffer.alloc(0);
        break;
      }
    }
    if (this.heldBytes + this.buffer.length > maxHeldBytes) return this.refuse('too much data before the publish');
    return { forward: Buffer.concat(out), verdict: this.verdict };
  }

  /** The verdict as the parsing left it (a method: the compiler does not see the parser change it). */
  private state(): GateVerdict['state'] {
    return this.verdict.state;
  }

  private refuse(reason: string): { forward: Buffer; verdict: GateVerdict } {
    this.verdict = { state: 'refused', reason };
    this.held = [];
    this.buffer = Buffer.alloc(0);
    return { forward: Buffer.alloc(0), verdict: this.verdict };
  }

  /** Parses one chunk from the buffer, or answers 'more' when it is not all there yet. */
  private chunk(): 'more' | 'done' {
    const b = this.buffer;
    if (b.length < 1) return 'more';
    const fmt = b[0]! >> 6;
    let csid = b[0]! & 0x3f;
    let at = 1;
    if (csid === 0) {
      if (b.length < 2) return 'more';
      csid = 64 + b[1]!;
      at = 2;
    } else if (csid === 1) {
      if (b.length < 3) return 'more';
      csid = 64 + b[1]! + b[2]! * 256;
      at = 3;
    }
    const headerLength = [11, 7, 3, 0][fmt]!;
    if (b.length < at + headerLength) return 'more';
    let stream = this.streams.get(csid);
    if (!stream) {
      if (fmt !== 0) {
        this.refuse('a chunk stream that did not start with a full header');
        return 'done';
      }
      if (this.streams.size >= maxChunkStreams) {
        this.refuse('too many chunk streams before the publish');
        return 'done';
      }
      stream = { length: 0, type: 0, timestamp: 0, extended: false, parts: [], received: 0 };
    }
    let timestamp = stream.timestamp;
    let length = stream.length;
    let type = stream.type;
    if (fmt <= 2) timestamp = b.readUIntBE(at, 3);
    if (fmt <= 1) {
      length = b.readUIntBE(at + 3, 3);
      type = b[at + 6]!;
    }
    at += headerLength;
    const extended = fmt <= 2 ? timestamp === 0xffffff : stream.extended;
    if (extended) {
      if (b.length < at + 4) return 'more';
      at += 4;
    }
    const take = Math.min(this.chunkSize, length - stream.received);
    if (b.length < at + take) return 'more';
    // The chunk is all here: commit its header to the chunk stream's state.
    // Only type-3 chunks continue a message. ffmpeg keeps a message's extended-timestamp flag from its
    // first chunk: a type-2 chunk mid-message would make it and this parser frame what follows
    // differently, and bytes this gate never checked would reach ffmpeg.
    if (fmt <= 2 && stream.received > 0) {
      this.refuse('a new message header in the middle of a message');
      return 'done';
    }
    if (length > maxMessageBytes) {
      this.refuse('a message too large before the publish');
      return 'done';
    }
    this.openingBytes += at + take;
    if (this.openingBytes > maxOpeningBytes) {
      this.refuse('too much data before the publish');
      return 'done';
    }
    Object.assign(stream, { length, type, timestamp, extended });
    this.streams.set(csid, stream);
    stream.parts.push(b.subarray(at, at + take));
    if (stream.received === 0 && take > 0) this.inProgress += 1;
    stream.received += take;
    this.held.push(b.subarray(0, at + take));
    this.heldBytes += at + take;
    this.buffer = b.subarray(at + take);
    if (stream.received >= stream.length) {
      const body = Buffer.concat(stream.parts);
      if (stream.received > 0) this.inProgress -= 1;
      stream.parts = [];
      stream.received = 0;
      if (++this.messages > maxMessages) {
        this.refuse('too many messages before the publish');
        return 'done';
      }
      this.message(type, body);
    }
    return 'done';
  }

  /** A whole message: allowed, or the connection refused. */
  private message(type: number, body: Buffer): void {
    if (controlTypes.has(type)) {
      if (type === 1 && body.length >= 4) {
        const size = body.readUInt32BE(0) & 0x7fffffff;
        if (size < 1 || size > maxChunkSize) this.refuse('a bad chunk size');
        else this.chunkSize = size;
      }
      return;
    }
    if (!commandTypes.has(type)) {
      this.refuse(`message type ${type} before an accepted publish`);
      return;
    }
    const command = commandOf(body, type === 17);
    if (!command) {
      this.refuse('a command that could not be read');
      return;
    }
    if (refusedCommands.has(command.name)) {
      this.refuse(`${command.name} is not served here`);
      return;
    }
    if (!namingCommands.has(command.name)) return;
    if (command.streamName === null || !sameKey(command.streamName, this.key)) {
      this.refuse('wrong stream key');
      return;
    }
    if (command.name === 'publish') this.verdict = { state: 'accepted' };
  }
}
