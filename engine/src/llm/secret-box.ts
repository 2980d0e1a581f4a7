import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM sealing of secrets at rest (DESIGN.md "secrets at rest"). The sealed form is
 * `v1.<iv b64>.<tag b64>.<ciphertext b64>`; a 12-byte random IV per seal (NIST SP 800-38D).
 */
export class SecretBox {
  private readonly key: Buffer;

  /** `keyMaterial`: 32 raw bytes, or any string (hashed with SHA-256 to 32 bytes). */
  constructor(keyMaterial: Buffer | string) {
    this.key = Buffer.isBuffer(keyMaterial) && keyMaterial.length === 32 ? keyMaterial : createHash('sha256').update(keyMaterial).digest();
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join('.');
  }

  /** Throws when the sealed value was tampered with or sealed under another key. */
  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unrecognised sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  }
}
