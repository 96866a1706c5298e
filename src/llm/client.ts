import OpenAI from 'openai';
import { observeOutbound } from '../observability/outbound.js';
import type { z } from 'zod';
import type { Config } from '../kernel/config/env.js';

/**
 * Why a model call failed. `retryable` ones (a timeout, a 5xx or 429, a reply that did not match the
 * schema) may do better on another attempt; the rest will not.
 */
export type LlmFailureKind = 'not_configured' | 'timeout' | 'unavailable' | 'rejected' | 'malformed';

export class LlmError extends Error {
  constructor(
    readonly kind: LlmFailureKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }

  get retryable(): boolean {
    return this.kind === 'timeout' || this.kind === 'unavailable' || this.kind === 'malformed';
  }
}

export interface StructuredRequest<T> {
  system: string;
  user: string;
  /** A name for the schema (letters, digits, _ and -), as the model sees it. */
  name: string;
  /** The JSON Schema the model must answer with (OpenAI structured outputs, strict). */
  jsonSchema: Record<string, unknown>;
  /** Checks the reply again here: a local model may not honour `strict`. */
  parse: z.ZodType<T>;
  /** False for a caller's own schema, which may use keywords strict mode refuses. Default true. */
  strict?: boolean;
  signal?: AbortSignal;
}

/** A plain-text completion whose text arrives as the model writes it (a chat answer). */
export interface TextStreamRequest {
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  /** The reply is cut here (the stream is closed): what the caller stores is bounded. */
  maxChars: number;
  /** Called with the whole text so far, each time more of it arrives. */
  onText: (textSoFar: string) => void;
  signal?: AbortSignal;
}

export const llmConfigured = (config: Config) => Boolean(config.LLM_MODEL);

/** The chat model behind LLM mode, LLM agents and `ask`: any OpenAI-compatible endpoint (`openai` package). */
export class Llm {
  private readonly client: OpenAI;

  constructor(private readonly config: Config) {
    // Local OpenAI-compatible servers take any key; the package refuses to start without one.
    this.client = new OpenAI({
      baseURL: config.OPENAI_BASE_URL,
      apiKey: config.OPENAI_API_KEY ?? 'unused',
      timeout: config.LLM_TIMEOUT_SECONDS * 1000,
      maxRetries: 0,
    });
  }

  get model(): string {
    if (!this.config.LLM_MODEL)
      throw new LlmError(
        'not_configured',
        'No language model is configured: set LLM_MODEL (and OPENAI_BASE_URL for a local OpenAI-compatible server).',
      );
    return this.config.LLM_MODEL;
  }

  /** A plain-text reply as it is written (streamText). */
  streamText(req: TextStreamRequest): Promise<{ text: string; cut: boolean }> {
    return streamText(this, this.client, this.config, req);
  }

  /** One chat completion whose reply must be JSON matching the schema. */
  async structured<T>(req: StructuredRequest<T>): Promise<T> {
    const model = this.model;
    let reply: OpenAI.Chat.Completions.ChatCompletion;
    try {
      reply = await observeOutbound({ kind: 'llm', target: model, operation: 'chat.completions' }, () =>
        this.client.chat.completions.create(
          {
            model,
            messages: [
              { role: 'system', content: req.system },
              { role: 'user', content: req.user },
            ],
            response_format: { type: 'json_schema', json_schema: { name: req.name, strict: req.strict ?? true, schema: req.jsonSchema } },
          },
          { signal: req.signal },
        ),
      );
    } catch (err) {
      throw asLlmError(err, this.config.LLM_TIMEOUT_SECONDS);
    }
    const message = reply.choices?.[0]?.message;
    if (message?.refusal) throw new LlmError('rejected', `The model refused: ${message.refusal.slice(0, 300)}`);
    const text = message?.content;
    if (typeof text !== 'string' || !text.trim()) throw new LlmError('malformed', 'The model returned no content.');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new LlmError('malformed', `The model's reply is not JSON: ${text.slice(0, 200)}`);
    }
    const parsed = req.parse.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new LlmError(
        'malformed',
        `The model's reply does not match the ${req.name} schema: ${issue.path.join('.') || '(root)'} ${issue.message}`,
      );
    }
    return parsed.data;
  }
}

/**
 * The model's plain-text reply, streamed (OpenAI `stream: true`): `onText` sees it grow. The timeout
 * bounds the wait for each piece, not the whole reply, so a long answer that keeps coming is not cut.
 */
export async function streamText(
  llm: Llm,
  client: OpenAI,
  config: Config,
  req: TextStreamRequest,
): Promise<{ text: string; cut: boolean }> {
  const model = llm.model;
  const idle = new AbortController();
  const signal = req.signal ? AbortSignal.any([req.signal, idle.signal]) : idle.signal;
  let timer: NodeJS.Timeout | undefined;
  let idled = false;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idled = true;
      idle.abort();
    }, config.LLM_TIMEOUT_SECONDS * 1000);
  };
  let text = '';
  let cut = false;
  try {
    arm();
    await observeOutbound({ kind: 'llm', target: model, operation: 'chat.completions' }, async () => {
      const stream = await client.chat.completions.create({ model, messages: req.messages, stream: true }, { signal });
      for await (const chunk of stream) {
        arm();
        const piece = chunk.choices?.[0]?.delta?.content;
        if (!piece) continue;
        text += piece;
        if (text.length >= req.maxChars) {
          text = text.slice(0, req.maxChars);
          cut = true;
        }
        req.onText(text);
        if (cut) {
          stream.controller.abort();
          break;
        }
      }
    });
  } catch (err) {
    if (idled) throw new LlmError('timeout', `The model sent nothing for ${config.LLM_TIMEOUT_SECONDS} s.`);
    throw asLlmError(err, config.LLM_TIMEOUT_SECONDS);
  } finally {
    clearTimeout(timer);
  }
  if (!text.trim()) throw new LlmError('malformed', 'The model returned no content.');
  return { text, cut };
}

function asLlmError(err: unknown, timeoutS: number): LlmError {
  if (err instanceof OpenAI.APIConnectionTimeoutError) return new LlmError('timeout', `The model did not answer within ${timeoutS} s.`);
  if (err instanceof OpenAI.APIError && err.status) {
    const body = err.message.slice(0, 300);
    const transient = err.status === 429 || err.status >= 500;
    return new LlmError(transient ? 'unavailable' : 'rejected', `The model endpoint answered ${err.status}: ${body}`, err.status);
  }
  if (err instanceof OpenAI.APIConnectionError)
    return new LlmError('unavailable', `The model endpoint could not be reached: ${err.message}`);
  return new LlmError('unavailable', err instanceof Error ? err.message : String(err));
}
