/**
 * Error answers of the fake LLM provider (llm-provider-server.ts), in each service's real body
 * shape: OpenAI `{error: {message, type, param, code}}`, Anthropic `{type: 'error', error}`,
 * Ollama `{error}`.
 */
import type { ServerResponse } from 'node:http';
import type { LlmBackend } from '../../engine/src/llm/types';

/** The provider's real error body shape. */
export function sendError(res: ServerResponse, backend: LlmBackend, status: number, message: string): void {
  if (status === 429) res.setHeader('retry-after', '1');
  if (backend === 'openai') {
    const [type, code] = OPENAI_ERROR_TYPES[status] ?? (status >= 500 ? ['server_error', null] : ['invalid_request_error', null]);
    sendJson(res, status, { error: { message, type, param: null, code } });
  } else if (backend === 'anthropic') {
    const type = ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    sendJson(res, status, { type: 'error', error: { type, message }, request_id: 'req_fake_error' });
  } else {
    sendJson(res, status, { error: message });
  }
}

const OPENAI_ERROR_TYPES: Record<number, [string, string | null]> = {
  401: ['invalid_request_error', 'invalid_api_key'],
  403: ['invalid_request_error', 'unsupported_country_region_territory'],
  404: ['invalid_request_error', 'model_not_found'],
  429: ['requests', 'rate_limit_exceeded'],
};
const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export function defaultMessage(backend: LlmBackend, status: number): string {
  if (status === 401) {
    return backend === 'openai'
      ? 'Incorrect API key provided: sk-fake. You can find your API key at https://platform.openai.com/account/api-keys.'
      : backend === 'anthropic'
        ? 'invalid x-api-key'
        : 'unauthorized';
  }
  if (status === 429) return backend === 'anthropic' ? 'Number of request tokens has exceeded your per-minute rate limit' : 'Rate limit reached for requests';
  if (status >= 500) return backend === 'anthropic' ? 'Internal server error' : 'The server had an error while processing your request. Sorry about that!';
  return `fake error ${status}`;
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  const data = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
  res.end(data);
}
