/**
 * Terraform resource addresses (`module.a["x"].data.aws_iam_policy_document.p[0]`), split without
 * being fooled by dots inside index keys.
 */

export interface ParsedAddress {
  /** `module.a["x"]` or null for the root module. */
  readonly moduleAddress: string | null;
  readonly mode: 'managed' | 'data' | 'ephemeral';
  /** Resource type, e.g. `aws_iam_policy_document`; '' when the address is not a resource. */
  readonly type: string;
}

/** Splits an address into module path, mode and type. Never throws. */
export function parseAddress(address: string): ParsedAddress {
  const parts = splitSegments(address);
  const modules: string[] = [];
  let i = 0;
  while (parts[i] === 'module' && i + 1 < parts.length) {
    modules.push(`module.${parts[i + 1]}`);
    i += 2;
  }
  let mode: ParsedAddress['mode'] = 'managed';
  if ((parts[i] === 'data' || parts[i] === 'ephemeral') && parts.length - i >= 3) {
    mode = parts[i] as 'data' | 'ephemeral';
    i += 1;
  }
  return { moduleAddress: modules.length > 0 ? modules.join('.') : null, mode, type: parts[i] ?? '' };
}

/** Dot-separated segments, keeping `[...]` index suffixes (and dots in quoted keys) attached. */
function splitSegments(address: string): string[] {
  const out: string[] = [];
  let current = '';
  let bracket = 0;
  let quoted = false;
  for (let i = 0; i < address.length; i += 1) {
    const c = address[i];
    if (quoted) {
      current += c;
      if (c === '\\') {
        current += address[i + 1] ?? '';
        i += 1;
      } else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === '[') bracket += 1;
    else if (c === ']') bracket -= 1;
    if (c === '.' && bracket === 0) {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
}
