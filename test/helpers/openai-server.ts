// The one stand-in tests may use (DEVELOPERS.md): a local OpenAI-compatible chat endpoint for a paid
// LLM provider. It speaks the real wire format (POST /v1/chat/completions) and answers with what the
// test scripts: a JSON reply, malformed text, an error status, or silence past the client's timeout.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: Record<string, unknown> } };
}

export interface ScriptedReply {
  /** The assistant message's content (a string is sent as is; anything else as JSON). */
  content?: unknown;
  status?: number;
  delayMs?: number;
  /** A streamed request (`stream: true`): the pieces sent, one SSE chunk each (default: the content, word by word). */
  chunks?: string[];
  /** Between two streamed pieces. */
  chunkDelayMs?: number;
}

export class FakeOpenAI {
  readonly requests: ChatRequest[] = [];
  /** Decides each reply; by default a reply with empty actions. */
  reply: (req: ChatRequest) => ScriptedReply = () => ({ content: { output: 'ok', actions: [] } });
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', async () => {
        if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
          return;
        }
        const body = JSON.parse(raw) as ChatRequest;
        this.requests.push(body);
        const scripted = this.reply(body);
        if (scripted.delayMs) await new Promise((r) => setTimeout(r, scripted.delayMs));
        if (res.destroyed) return;
        if (scripted.status && scripted.status >= 400) {
          res
            .writeHead(scripted.status, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { message: 'scripted failure', type: 'server_error' } }));
          return;
        }
        const content = typeof scripted.content === 'string' ? scripted.content : JSON.stringify(scripted.content);
        if (body.stream) {
          await this.stream(res, body.model, scripted.chunks ?? content.split(/(?<= )/), scripted.chunkDelayMs ?? 0);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `chatcmpl-${this.requests.length}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content, refusal: null } }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  /** A streamed reply as the OpenAI API sends one: a chunk per piece, then the finish, then [DONE]. */
  private async stream(res: import('node:http').ServerResponse, model: string, pieces: string[], delayMs: number): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const id = `chatcmpl-${this.requests.length}`;
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }, null));
    for (const piece of pieces) {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      if (res.destroyed) return;
      res.write(chunk({ content: piece }, null));
    }
    res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
  }

  /** The user message of the latest request: the context and input the model saw. */
  get lastPrompt(): string {
    return this.requests.at(-1)?.messages.find((m) => m.role === 'user')?.content ?? '';
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
