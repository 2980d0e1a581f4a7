/**
 * The peer scanners' Terraform check catalogues under bench/peer-checks/ (Checkov, tfsec/Trivy,
 * KICS: id, resource types, name, read from each peer's public sources) and the equivalence file
 * pairing a tfsec/Trivy or KICS check with the Checkov check it checks the same fact as. Read by
 * bench/coverage-table.ts for docs/coverage.md.
 */
import { readFileSync } from 'node:fs';

/** The peer scanners whose Terraform checks are reviewed, each with its catalogue under bench/peer-checks/. */
export type Peer = 'checkov' | 'trivy' | 'kics';
/** Per peer: its catalogue file, and its section title, column heading and plural noun in docs/coverage.md. */
export const PEERS: Readonly<Record<Peer, { file: string; title: string; column: string; checks: string }>> = {
  checkov: { file: 'checkov-terraform.tsv', title: 'Checkov checks of the most common types', column: 'Checkov check', checks: 'Checkov checks' },
  trivy: { file: 'trivy-terraform.tsv', title: 'tfsec/Trivy checks of the same types', column: 'tfsec/Trivy check', checks: 'tfsec/Trivy checks' },
  kics: { file: 'kics-terraform.tsv', title: 'KICS queries of the same types', column: 'KICS query', checks: 'KICS queries' },
};
const EQUIVALENTS = new URL('./peer-checks/equivalents.tsv', import.meta.url);

/** One peer check of a catalogue (bench/peer-checks/<peer>-terraform.tsv). */
export interface PeerCheck {
  readonly id: string;
  readonly types: readonly string[];
  readonly name: string;
}

/** The rows of a tab-separated peer file (`#` lines and the header line skipped). Throws when the file is missing. */
function tsvRows(file: URL): string[][] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#') && !/^(id|peer)\t/.test(l))
    .map((l) => l.split('\t'));
}

/** A peer's catalogue (Checkov by default): one entry per check id. Throws when the file is missing. */
export function peerCatalogue(peer: Peer = 'checkov'): PeerCheck[] {
  return tsvRows(new URL(`./peer-checks/${PEERS[peer].file}`, import.meta.url)).map(([id, types, name]) => ({ id, types: types.split(','), name: name ?? '' }));
}

/** Trivy/KICS check id → the Checkov check ids it checks the same fact as (bench/peer-checks/equivalents.tsv). */
export function peerEquivalents(): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const [peer, checkov] of tsvRows(EQUIVALENTS)) map.set(peer, [...(map.get(peer) ?? []), checkov]);
  return map;
}

/** The three catalogues the document reviews. */
export interface Catalogues {
  readonly checkov: readonly PeerCheck[];
  readonly trivy: readonly PeerCheck[];
  readonly kics: readonly PeerCheck[];
  /** Trivy/KICS id → Checkov ids (bench/peer-checks/equivalents.tsv). */
  readonly equivalents: ReadonlyMap<string, readonly string[]>;
}

/** The committed catalogues and equivalence file. Throws when one is missing. */
export function peerCatalogues(): Catalogues {
  return { checkov: peerCatalogue('checkov'), trivy: peerCatalogue('trivy'), kics: peerCatalogue('kics'), equivalents: peerEquivalents() };
}
