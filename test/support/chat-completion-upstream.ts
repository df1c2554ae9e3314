// An upstream on 127.0.0.1 that answers every request with one OpenAI chat completion ("ok"),
// whatever the body holds: for tests that need a proxied call, not a particular answer.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatCompletionUpstreamOptions {
  readonly model?: string;
  readonly created?: number;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
}

export async function startChatCompletionUpstream(options: ChatCompletionUpstreamOptions = {}): Promise<{ url: string; server: Server }> {
  const { model = 'gpt-4o', created = 1, promptTokens = 12, completionTokens = 1 } = options;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        }),
      );
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
