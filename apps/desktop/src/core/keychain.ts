import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

/** The part of Electron's `safeStorage` the keychain uses (electron.d.ts `SafeStorage`). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: `basic_text` means no keyring, a hard-coded password — plain text in effect. */
  getSelectedStorageBackend?(): string;
}

/** Raised instead of ever writing a secret in plain text (or with the `basic_text` fallback). */
export class KeychainUnavailableError extends Error {
  constructor(reason: string) {
    super(
      `Cannot store the key securely: ${reason}. The key was not saved; enter it for each analysis, or set up your system keychain (GNOME Keyring / KWallet on Linux) and restart the app.`,
    );
    this.name = 'KeychainUnavailableError';
  }
}

const FileSchema = z.object({ version: z.literal(1), entries: z.record(z.string(), z.string()) });

/**
 * Cloud-provider keys sealed with the OS keychain through Electron's `safeStorage` (docs/decisions.md "Desktop keys"):
 * `<file>` holds `{version: 1, entries: {name: base64 ciphertext}}`, mode 0600, replaced
 * atomically. Nothing is written when encryption is unavailable: `set` throws
 * KeychainUnavailableError, `get` answers null.
 */
export class Keychain {
  constructor(
    private readonly safeStorage: SafeStorageLike,
    private readonly file: string,
  ) {}

  /** Null when secure storage works; else why not (shown in settings). */
  unavailableReason(): string | null {
    if (!this.safeStorage.isEncryptionAvailable()) return 'the operating system keychain is not available';
    if (this.safeStorage.getSelectedStorageBackend?.() === 'basic_text') return 'no keyring is running (Electron would fall back to a hard-coded password)';
    return null;
  }

  /** Seals and saves `secret` under `name` (e.g. `openai`). Throws KeychainUnavailableError. */
  set(name: string, secret: string): void {
    const reason = this.unavailableReason();
    if (reason) throw new KeychainUnavailableError(reason);
    const entries = this.read();
    entries[name] = this.safeStorage.encryptString(secret).toString('base64');
    this.write(entries);
  }

  /** The secret saved under `name`, or null (none saved, or the keychain cannot open it now). */
  get(name: string): string | null {
    const sealed = this.read()[name];
    if (sealed === undefined || this.unavailableReason()) return null;
    try {
      return this.safeStorage.decryptString(Buffer.from(sealed, 'base64'));
    } catch {
      return null;
    }
  }

  /** Names with a saved secret (never the secrets). */
  names(): string[] {
    return Object.keys(this.read()).sort();
  }

  /** Forgets `name`; true when something was removed. */
  delete(name: string): boolean {
    const entries = this.read();
    if (!(name in entries)) return false;
    delete entries[name];
    this.write(entries);
    return true;
  }

  private read(): Record<string, string> {
    if (!existsSync(this.file)) return {};
    const parsed = FileSchema.safeParse(JSON.parse(readFileSync(this.file, 'utf8')));
    return parsed.success ? { ...parsed.data.entries } : {};
  }

  private write(entries: Record<string, string>): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: 1, entries }), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
