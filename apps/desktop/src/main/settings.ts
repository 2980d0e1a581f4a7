import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** Non-secret desktop settings (`<userData>/settings.json`); the service key lives in the keychain. */
const SettingsSchema = z.object({ team_url: z.string().url().nullable().default(null) });
export type DesktopSettings = z.infer<typeof SettingsSchema>;

export function readSettings(userData: string): DesktopSettings {
  const file = join(userData, 'settings.json');
  if (!existsSync(file)) return SettingsSchema.parse({});
  const parsed = SettingsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  return parsed.success ? parsed.data : SettingsSchema.parse({});
}

export function writeSettings(userData: string, settings: DesktopSettings): void {
  mkdirSync(userData, { recursive: true });
  writeFileSync(join(userData, 'settings.json'), JSON.stringify(settings, null, 2));
}
