import type { SafeStorageLike } from '../../apps/desktop/src/core/keychain';

/**
 * A stand-in for Electron's safeStorage (reversible, clearly not plain text: the secret is
 * reversed and base64-encoded behind a `sealed:` prefix). `available: false` is a machine
 * without a keychain; backend `basic_text` is Linux's hard-coded-password fallback.
 */
export function fakeSafeStorage(available = true, backend = 'gnome_libsecret'): SafeStorageLike {
  return {
    isEncryptionAvailable: () => available,
    getSelectedStorageBackend: () => backend,
    encryptString: (s) => Buffer.from(`sealed:${Buffer.from(s).reverse().toString('base64')}`),
    decryptString: (b) => Buffer.from(b.toString().slice('sealed:'.length), 'base64').reverse().toString(),
  };
}
