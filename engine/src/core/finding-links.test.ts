import { describe, expect, it } from 'vitest';
import { findingPageUrl, namespaceFindingsUrl } from './finding-links';

describe('links from reports into the dashboard', () => {
  it("puts a finding's page under its namespace's findings link, encoded", () => {
    const ns = namespaceFindingsUrl('https://dash.example.com/app/', 'pr 42/a');
    expect(ns).toBe('https://dash.example.com/app/findings?namespace=pr%2042%2Fa');
    expect(findingPageUrl(ns, 'pr 42/a', 'abc', 'TF-X')).toBe('https://dash.example.com/app/findings/pr%2042%2Fa/abc/TF-X');
  });

  it('makes no link without a configured base or from anything but such a link', () => {
    expect(namespaceFindingsUrl(null, 'x')).toBeNull();
    expect(findingPageUrl(null, 'x', 'h', 'r')).toBeNull();
    expect(findingPageUrl('https://dash.example.com/reports/1', 'x', 'h', 'r')).toBeNull();
    expect(findingPageUrl('javascript:alert(1)//findings', 'x', 'h', 'r')).toBeNull();
    expect(findingPageUrl('not a url', 'x', 'h', 'r')).toBeNull();
  });
});
