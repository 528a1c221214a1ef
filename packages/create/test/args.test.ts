import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { parseArguments } from '../src/internal/args.js';
import { nameFromDirectory, packageNameProblem } from '../src/internal/names.js';

const refusal = (argv: string[]) => {
  try {
    parseArguments(argv);
  } catch (error) {
    expect(UsageError.is(error), String(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
};

describe('parseArguments', () => {
  it('reads the folder and every flag', () => {
    expect(
      parseArguments(['desk', '--store', 'postgres', '--console', '--name', '@acme/desk', '-y']),
    ).toEqual({
      directory: 'desk',
      name: '@acme/desk',
      store: 'postgres',
      console: true,
      yes: true,
      help: false,
      version: false,
    });
    expect(parseArguments(['--store=memory', '--no-console'])).toMatchObject({
      store: 'memory',
      console: false,
    });
  });

  it('leaves out what the command line does not say, so it can be asked', () => {
    expect(parseArguments([])).toEqual({ yes: false, help: false, version: false });
  });

  it('refuses an unknown flag, naming it', () => {
    expect(refusal(['desk', '--bogus'])).toContain("'--bogus'");
  });

  it('refuses a flag without its value', () => {
    expect(refusal(['--store'])).toContain('--store');
  });

  it('refuses a store outside memory, sqlite and postgres', () => {
    expect(refusal(['--store', 'mongo'])).toBe(
      '--store must be one of memory, sqlite, postgres (got "mongo").',
    );
  });

  it('refuses --console together with --no-console', () => {
    expect(refusal(['--console', '--no-console'])).toBe('Give --console or --no-console, not both.');
  });

  it('refuses more than one folder', () => {
    expect(refusal(['one', 'two'])).toBe('Give one project folder, not 2 (one, two).');
  });
});

describe('packageNameProblem', () => {
  it('accepts names npm takes', () => {
    for (const name of ['desk', 'my-desk.v2', '@acme/desk', 'a~b_c'])
      expect(packageNameProblem(name), name).toBeUndefined();
  });

  it('refuses names npm refuses, saying why', () => {
    expect(packageNameProblem('')).toBe('the name is empty');
    expect(packageNameProblem('My-Desk')).toBe('a package name is lowercase');
    expect(packageNameProblem('.desk')).toContain('does not start with');
    expect(packageNameProblem('_desk')).toContain('does not start with');
    expect(packageNameProblem('my desk')).toContain('holds only');
    expect(packageNameProblem('desk/tools')).toContain('holds only');
    expect(packageNameProblem('fs')).toBe('"fs" is reserved');
    expect(packageNameProblem('node_modules')).toBe('"node_modules" is reserved');
    expect(packageNameProblem('d'.repeat(215))).toContain('214');
  });
});

describe('nameFromDirectory', () => {
  it('makes a package name of the folder name', () => {
    expect(nameFromDirectory('/home/ada/My Desk/')).toBe('my-desk');
    expect(nameFromDirectory('projects\\Ticket Desk')).toBe('ticket-desk');
    expect(nameFromDirectory('.hidden')).toBe('hidden');
  });
});
