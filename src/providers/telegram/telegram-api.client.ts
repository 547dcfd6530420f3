import type { OutboundHeaders, OutboundHttp } from '../../common/http/outbound-http';
import { parseJsonBody } from '../../common/http/outbound-http';
import type { MultipartForm } from '../multipart-form.util';
import { CallKind, clipErrorText, mapHttpFailure, mapThrown, retryAfterSeconds } from '../provider-http.util';
import { asNumber, asObject, asString } from '../provider-json.util';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  ProviderError,
  TransientProviderError,
} from '../provider.errors';

export const TELEGRAM = 'Telegram';
export const TELEGRAM_DEFAULT_API_BASE_URL = 'https://api.telegram.org';

/** A Bot API answer: `{ok: true, result}` or `{ok: false, error_code, description, parameters}`. */
export interface TelegramAnswer {
  status: number;
  headers: OutboundHeaders;
  ok: boolean;
  result: unknown;
  description: string;
  /** `parameters.retry_after` (429) and `parameters.migrate_to_chat_id` (a group that became a supergroup). */
  retryAfter: number | undefined;
  migrateToChatId: number | undefined;
}

/**
 * The Bot API (`{base}/bot<token>/<method>`) for one bot. The token is part of every URL, so no
 * URL is ever put in a message or a log: errors name the method and Telegram's description only.
 */
export class TelegramApi {
  constructor(
    private readonly http: OutboundHttp,
    private readonly baseUrl: string,
    private readonly botToken: string,
  ) {}

  /** Calls `method` with JSON parameters or a multipart form; transport failures become provider errors. */
  async send(
    method: string,
    params: Record<string, unknown> | MultipartForm,
    timeoutMs?: number,
  ): Promise<TelegramAnswer> {
    const multipart = 'contentType' in params && 'body' in params ? (params as MultipartForm) : undefined;
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | MultipartForm['body'];
    if (multipart) {
      headers['content-type'] = multipart.contentType;
      headers['content-length'] = String(multipart.contentLength);
      body = multipart.body;
    } else {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(params);
    }
    try {
      const res = await this.http.request({
        method: 'POST',
        url: `${this.baseUrl}/bot${this.botToken}/${method}`,
        headers,
        body,
        timeoutMs,
      });
      const data = asObject(parseJsonBody(res.body));
      const parameters = asObject(data?.parameters);
      return {
        status: res.status,
        headers: res.headers,
        ok: data?.ok === true,
        result: data?.result,
        description: asString(data?.description) ?? '',
        retryAfter: asNumber(parameters?.retry_after),
        migrateToChatId: asNumber(parameters?.migrate_to_chat_id),
      };
    } catch (err) {
      if (multipart) multipart.body.destroy();
      throw mapThrown(TELEGRAM, err);
    }
  }

  /** Calls `method` and returns its `result`; refusals become typed provider errors. */
  async call(
    method: string,
    params: Record<string, unknown> | MultipartForm,
    kind: CallKind,
    timeoutMs?: number,
  ): Promise<unknown> {
    const answer = await this.send(method, params, timeoutMs);
    if (answer.ok && answer.status >= 200 && answer.status < 300) return answer.result;
    throw telegramFailure(answer, kind);
  }
}

/** Maps a refused Bot API call to the adapter error contract. */
export function telegramFailure(answer: TelegramAnswer, kind: CallKind): ProviderError {
  const detail = answer.description ? `: ${clipErrorText(answer.description)}` : '';
  if (answer.status === 429) {
    return new TransientProviderError(
      `${TELEGRAM} rate limit reached${detail}`,
      429,
      answer.retryAfter ?? retryAfterSeconds(answer.headers),
    );
  }
  if (answer.status === 403) {
    // "bot was kicked from the channel chat", "bot is not a member of the channel chat", ...
    return new CredentialsRevokedError(`${TELEGRAM} no longer lets the bot post in this chat${detail}`, 403);
  }
  if (answer.migrateToChatId !== undefined) {
    return new ContentRejectedError(
      `${TELEGRAM}: the group became a supergroup; reconnect the channel with chatId ${answer.migrateToChatId}`,
      answer.status,
    );
  }
  if (answer.status >= 200 && answer.status < 300) {
    return new TransientProviderError(`${TELEGRAM} answered without a result${detail}`, answer.status);
  }
  return mapHttpFailure(TELEGRAM, answer.status, answer.headers, answer.description, kind);
}
