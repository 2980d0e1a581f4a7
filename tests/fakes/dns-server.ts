import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;

/**
 * A small authoritative DNS server on 127.0.0.1 (UDP, a free port) speaking the real wire
 * protocol through dns2, for the resolver the server is pointed at with `sso.dns_servers`.
 * `txt` maps a lower-cased name to its TXT records (each record one or more character-strings);
 * a name in `txt` with no records answers NODATA, an unknown name NXDOMAIN, a name in
 * `servfail` SERVFAIL. Every question is recorded in `seen` as `TYPE name`.
 */
export interface FakeDnsServer {
  /** `127.0.0.1:<port>`, the value for `sso.dns_servers`. */
  readonly address: string;
  readonly txt: Map<string, string[][]>;
  readonly servfail: Set<string>;
  readonly seen: string[];
  close(): Promise<void>;
}

const TYPE_NAMES = new Map<number, string>(Object.entries(Packet.TYPE as Record<string, number>).map(([k, v]) => [v, k]));

/** Starts the server; close() stops it (its address then refuses queries, a "resolver down"). */
export async function startFakeDnsServer(): Promise<FakeDnsServer> {
  const txt = new Map<string, string[][]>();
  const servfail = new Set<string>();
  const seen: string[] = [];
  const server = dns2.createServer({
    udp: { type: 'udp4' },
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      response.header.aa = 1;
      const [question] = request.questions;
      const name = question?.name.toLowerCase().replace(/\.$/, '') ?? '';
      seen.push(`${TYPE_NAMES.get(question?.type ?? 0) ?? question?.type} ${name}`);
      if (servfail.has(name)) {
        response.header.rcode = Packet.RCODE.SERVFAIL;
      } else if (!txt.has(name)) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
      } else if (question.type === Packet.TYPE.TXT) {
        for (const data of txt.get(name) ?? []) {
          response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data } as never);
        }
      }
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const { port } = addresses.udp as AddressInfo;
  return { address: `127.0.0.1:${port}`, txt, servfail, seen, close: () => server.close() };
}
