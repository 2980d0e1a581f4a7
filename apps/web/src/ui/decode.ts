/**
 * Decodes a dropped or picked plan file to text the way the server's ingest does: a UTF-16
 * (LE/BE) or UTF-8 byte-order mark decides, else UTF-16 LE is recognised by NUL high bytes,
 * else UTF-8. Terraform on Windows writes `terraform show -json > plan.json` as UTF-16 LE.
 */
export function decodePlanBytes(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder('utf-8').decode(bytes.subarray(3));
  const sample = bytes.subarray(0, 512);
  let oddNuls = 0;
  for (let i = 1; i < sample.length; i += 2) if (sample[i] === 0) oddNuls += 1;
  if (sample.length > 8 && oddNuls > sample.length / 4) return new TextDecoder('utf-16le').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes);
}
