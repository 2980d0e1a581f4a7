import { describe, expect, it } from 'vitest';
import { MCP_PATH } from './endpoint';
import { MCP_MOUNT_PATH } from './lazy-endpoint';

describe('lazy MCP endpoint', () => {
  it('is mounted where the MCP endpoint says it lives', () => {
    expect(MCP_MOUNT_PATH).toBe(MCP_PATH);
  });
});
