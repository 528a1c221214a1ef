import { describe, expect, it } from 'vitest';
import { parseScanArgs, ScanUsageError, splitCommand } from '../../src/index.js';

const usageError = (argv: string[], env = {}) => {
  try {
    parseScanArgs(argv, env);
  } catch (error) {
    expect(ScanUsageError.is(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
};

describe('parseScanArgs', () => {
  it('reads a URL, a token and the flags', () => {
    const command = parseScanArgs([
      'http://127.0.0.1:3000/mcp',
      '--token',
      't0k',
      '--format=sarif',
      '--era',
      '2025-11-25',
    ]);
    expect(command.target).toEqual({ url: new URL('http://127.0.0.1:3000/mcp') });
    expect(command.credential).toEqual({ authorization: 'Bearer t0k' });
    expect(command.credentialKind).toBe('token');
    expect(command.format).toBe('sarif');
    expect(command.eras).toEqual(['2025-11-25']);
  });

  it('takes the token from GATEHOUSE_SCAN_TOKEN when --token is absent', () => {
    const command = parseScanArgs(['https://mcp.example/mcp'], { GATEHOUSE_SCAN_TOKEN: 'from-env' });
    expect(command.credential).toEqual({ authorization: 'Bearer from-env' });
  });

  it('sends --header values as the credential, lower-cased names', () => {
    const command = parseScanArgs([
      'https://mcp.example/mcp',
      '--header',
      'X-Api-Key: k1',
      '--header',
      'X-Tenant:t',
    ]);
    expect(command.credential).toEqual({ 'x-api-key': 'k1', 'x-tenant': 't' });
    expect(command.credentialKind).toBe('headers');
  });

  it('splits a --stdio command line with quotes', () => {
    const command = parseScanArgs(['--stdio', 'node "my server.mjs" --flag \'a b\'']);
    expect(command.target).toEqual({ command: 'node', args: ['my server.mjs', '--flag', 'a b'] });
    expect(splitCommand('a\\ b "" c')).toEqual(['a b', '', 'c']);
  });

  it('refuses unclear command lines with a message naming the problem', () => {
    expect(usageError([])).toMatch(/give the URL/);
    expect(usageError(['http://a/mcp', '--stdio', 'node s.js'])).toMatch(/not both/);
    expect(usageError(['http://a/mcp', '--bogus'])).toMatch(/unknown option --bogus/);
    expect(usageError(['http://a/mcp', '--token'])).toMatch(/--token needs a value/);
    expect(usageError(['ftp://a/mcp'])).toMatch(/http or https/);
    expect(usageError(['http://a/mcp', '--allow-writes'])).toMatch(/needs --allow-calls/);
    expect(usageError(['http://a/mcp', '--allow-calls'])).toMatch(/needs --fixture/);
    expect(usageError(['http://a/mcp', '--public', '--token', 't'])).toMatch(/--public/);
    expect(usageError(['http://a/mcp', '--format', 'xml'])).toMatch(/--format takes/);
    expect(usageError(['http://a/mcp', '--era', '2024-01-01'])).toMatch(/--era takes/);
    expect(usageError(['http://a/mcp', '--timeout', '-5'])).toMatch(/positive whole number/);
    expect(usageError(['http://a/mcp', '--header', 'no colon'])).toMatch(/Name: value/);
    expect(usageError(['--stdio', 'node "open'])).toMatch(/unclosed/);
    expect(usageError(['--stdio', 'node s.js', '--token', 't'])).toMatch(/for HTTP/);
  });
});
