// A loopback OTLP/HTTP traces receiver for the tests: takes http/json and http/protobuf requests
// (the protobuf decoded here, from the OTLP wire format, with no generated code), keeps each span
// with its resource, and answers 200, or the status a test asks it to refuse with.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedValue = string | number | boolean | ReceivedValue[];

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' on a root. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: Record<string, ReceivedValue>;
  readonly status: { readonly code: number; readonly message: string };
  readonly resource: Record<string, ReceivedValue>;
}

export interface ReceivedRequest {
  readonly path: string;
  readonly contentType: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly spans: ReceivedSpan[];
}

export interface OtlpReceiver {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  spans(): ReceivedSpan[];
  /** Answer every request with this status (and body) from now on; 200 accepts. */
  answer(status: number, body?: string): void;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  let status = 200;
  let answerBody = '{}';
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = request.headers['content-type'] ?? '';
      if (status === 200) {
        const spans = contentType.includes('json') ? decodeJson(JSON.parse(body.toString('utf8'))) : decodeProtobuf(body);
        requests.push({ path: request.url ?? '', contentType, headers: request.headers, body, spans });
        response.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf' });
        response.end(contentType.includes('json') ? '{}' : Buffer.alloc(0));
        return;
      }
      requests.push({ path: request.url ?? '', contentType, headers: request.headers, body, spans: [] });
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(answerBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.flatMap((request) => request.spans),
    answer(next, body = '') {
      status = next;
      answerBody = body;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// ---- http/json ----

type JsonAny = Record<string, unknown>;

function jsonValue(value: JsonAny): ReceivedValue {
  if ('stringValue' in value) return String(value.stringValue);
  if ('boolValue' in value) return Boolean(value.boolValue);
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) return (((value.arrayValue as JsonAny).values as JsonAny[] | undefined) ?? []).map(jsonValue);
  throw new Error(`unexpected OTLP/JSON value ${JSON.stringify(value)}`);
}

function jsonAttributes(list: unknown): Record<string, ReceivedValue> {
  const attributes: Record<string, ReceivedValue> = {};
  for (const entry of (list as JsonAny[] | undefined) ?? []) attributes[String(entry.key)] = jsonValue(entry.value as JsonAny);
  return attributes;
}

function decodeJson(body: JsonAny): ReceivedSpan[] {
  return ((body.resourceSpans as JsonAny[]) ?? []).flatMap((resourceSpans) => {
    const resource = jsonAttributes((resourceSpans.resource as JsonAny | undefined)?.attributes);
    return ((resourceSpans.scopeSpans as JsonAny[]) ?? []).flatMap((scopeSpans) =>
      ((scopeSpans.spans as JsonAny[]) ?? []).map((span) => ({
        traceId: String(span.traceId),
        spanId: String(span.spanId),
        parentSpanId: String(span.parentSpanId ?? ''),
        name: String(span.name),
        kind: Number(span.kind),
        startTimeUnixNano: BigInt(String(span.startTimeUnixNano)),
        endTimeUnixNano: BigInt(String(span.endTimeUnixNano)),
        attributes: jsonAttributes(span.attributes),
        status: {
          code: Number((span.status as JsonAny | undefined)?.code ?? 0),
          message: String((span.status as JsonAny | undefined)?.message ?? ''),
        },
        resource,
      })),
    );
  });
}

// ---- http/protobuf: the protobuf wire format, read field by field ----

type Field = { readonly number: number; readonly wire: number; readonly value: bigint | Buffer };

function readVarint(bytes: Buffer, at: { offset: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = bytes[at.offset++];
    if (byte === undefined) throw new Error('protobuf: truncated varint');
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7n;
  }
}

function fieldsOf(bytes: Buffer): Field[] {
  const fields: Field[] = [];
  const at = { offset: 0 };
  while (at.offset < bytes.length) {
    const tag = readVarint(bytes, at);
    const number = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) fields.push({ number, wire, value: readVarint(bytes, at) });
    else if (wire === 1) {
      fields.push({ number, wire, value: bytes.subarray(at.offset, at.offset + 8) });
      at.offset += 8;
    } else if (wire === 2) {
      const length = Number(readVarint(bytes, at));
      fields.push({ number, wire, value: bytes.subarray(at.offset, at.offset + length) });
      at.offset += length;
    } else if (wire === 5) {
      fields.push({ number, wire, value: bytes.subarray(at.offset, at.offset + 4) });
      at.offset += 4;
    } else throw new Error(`protobuf: unexpected wire type ${wire}`);
  }
  return fields;
}

const buffersOf = (fields: Field[], number: number) =>
  fields.filter((field) => field.number === number).map((field) => field.value as Buffer);
const bufferOf = (fields: Field[], number: number) => buffersOf(fields, number)[0];
const stringOf = (fields: Field[], number: number) => bufferOf(fields, number)?.toString('utf8') ?? '';
const varintOf = (fields: Field[], number: number) => (fields.find((field) => field.number === number)?.value as bigint | undefined) ?? 0n;

function protobufValue(bytes: Buffer): ReceivedValue {
  const field = fieldsOf(bytes)[0];
  if (field === undefined) return '';
  switch (field.number) {
    case 1:
      return (field.value as Buffer).toString('utf8');
    case 2:
      return field.value === 1n;
    case 3:
      return Number(BigInt.asIntN(64, field.value as bigint));
    case 4:
      return (field.value as Buffer).readDoubleLE(0);
    case 5:
      return buffersOf(fieldsOf(field.value as Buffer), 1).map(protobufValue);
    default:
      throw new Error(`protobuf: unexpected AnyValue field ${field.number}`);
  }
}

function protobufAttributes(buffers: Buffer[]): Record<string, ReceivedValue> {
  const attributes: Record<string, ReceivedValue> = {};
  for (const buffer of buffers) {
    const fields = fieldsOf(buffer);
    const value = bufferOf(fields, 2);
    attributes[stringOf(fields, 1)] = value === undefined ? '' : protobufValue(value);
  }
  return attributes;
}

function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  return buffersOf(fieldsOf(body), 1).flatMap((resourceSpansBytes) => {
    const resourceSpans = fieldsOf(resourceSpansBytes);
    const resourceBytes = bufferOf(resourceSpans, 1);
    const resource = resourceBytes === undefined ? {} : protobufAttributes(buffersOf(fieldsOf(resourceBytes), 1));
    return buffersOf(resourceSpans, 2).flatMap((scopeSpansBytes) =>
      buffersOf(fieldsOf(scopeSpansBytes), 2).map((spanBytes) => {
        const span = fieldsOf(spanBytes);
        const status = fieldsOf(bufferOf(span, 15) ?? Buffer.alloc(0));
        return {
          traceId: (bufferOf(span, 1) ?? Buffer.alloc(0)).toString('hex'),
          spanId: (bufferOf(span, 2) ?? Buffer.alloc(0)).toString('hex'),
          parentSpanId: (bufferOf(span, 4) ?? Buffer.alloc(0)).toString('hex'),
          name: stringOf(span, 5),
          kind: Number(varintOf(span, 6)),
          startTimeUnixNano: (bufferOf(span, 7) ?? Buffer.alloc(8)).readBigUInt64LE(0),
          endTimeUnixNano: (bufferOf(span, 8) ?? Buffer.alloc(8)).readBigUInt64LE(0),
          attributes: protobufAttributes(buffersOf(span, 9)),
          status: { code: Number(varintOf(status, 3)), message: stringOf(status, 2) },
          resource,
        };
      }),
    );
  });
}
