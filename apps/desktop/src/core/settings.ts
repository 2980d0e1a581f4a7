import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** Non-secret desktop settings (`<userData>/settings.json`); the service key lives in the keychain. */
const SettingsSchema = z.object({ team_url: z.string().url().nullable().default(null) });
export type DesktopSettings = z.infer<typeof SettingsSchema>;

/** The saved settings; a missing, unreadable or invalid file gives the defaults (no team server). */
export function readSettings(userData: string): DesktopSettings {
  const file = join(userData, 'settings.json');
  if (!existsSync(file)) return SettingsSchema.parse({});
  try {
    const parsed = SettingsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : SettingsSchema.parse({});
  } catch {
    return SettingsSchema.parse({});
  }
}

/** Saves `settings` atomically (written beside, then renamed over `settings.json`). */
export function writeSettings(userData: string, settings: DesktopSettings): void {
  mkdirSync(userData, { recursive: true });
  const file = join(userData, 'settings.json');
  writeFileSync(`${file}.tmp`, JSON.stringify(SettingsSchema.parse(settings), null, 2));
  renameSync(`${file}.tmp`, file);
}
