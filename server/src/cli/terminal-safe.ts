/**
 * What the `planwarden` command prints comes from the analysed input, the server and the model
 * (resource names, rule text, finding descriptions, error details). A terminal acts on control
 * characters in it: ESC / CSI / OSC sequences retitle the window, clear the screen, write
 * hyperlinks or the clipboard; C1 controls (U+0080-U+009F, e.g. U+009B = CSI) do the same on
 * terminals that honour 8-bit controls; bidi overrides (U+202E, "Trojan Source") reorder what
 * the reader sees; a line break inside one field forges a line of its own, which a CI runner
 * may read as a command (GitHub Actions' `::` workflow commands). docs/decisions.md (H5).
 */

/** Unicode general category Cc (C0, DEL, C1) and the Bidi_Control characters. */
const UNSAFE = /[\p{Cc}\p{Bidi_Control}]/gu;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' };

function escapeChar(char: string): string {
  return SHORT[char] ?? `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character and bidi control replaced by its visible JSON-style
 * escape (`\u001b`, `\u009b`, `\u202e`, `\n`), so the reader sees what was there and the
 * terminal acts on none of it. Every print path of the command goes through here.
 *
 * `layout` (default) keeps line feeds, tabs and the CR of a CRLF: the layout of a whole
 * document (the markdown report, help text). `line` keeps tabs only: one line of stderr
 * (progress, messages), where a line feed from a field must not start a line of its own.
 *
 * A JSON text passes unchanged in meaning: JSON.stringify already writes C0 controls as
 * escapes and uses raw line feeds only as layout, and the C1 / bidi characters it leaves raw
 * can occur only inside strings, where `\uXXXX` is the same string (no double escaping).
 */
export function terminalSafe(text: string, mode: 'layout' | 'line' = 'layout'): string {
  return text.replace(UNSAFE, (char, offset: number) => {
    if (char === '\t') return char;
    if (mode === 'layout' && (char === '\n' || (char === '\r' && text[offset + 1] === '\n'))) return char;
    return escapeChar(char);
  });
}
