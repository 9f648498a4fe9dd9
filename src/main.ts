#!/usr/bin/env bun
import { Command, CommanderError, Option } from 'commander'
import { addTeacherCommands } from './cli/commands'
import { CliFailure } from './cli/jobs'
import { addListenCommand } from './cli/listen'
import { ConfigError, helpLine, loadConfig, SETTINGS, SWITCHES, type RawSettings, type SettingName } from './config'
import { printable } from './kernel/control-characters'
import { shellQuoted } from './kernel/file-messages'
import { createPrivately } from './kernel/private-files'
import { serve } from './server'
import { VERSION } from './version'

/** Exit code for anything the user can fix by changing how they started us. */
const EXIT_USAGE = 2

function fail(message: string): never {
  process.stderr.write(`storefront: ${printable(message)}\n`)
  process.exit(EXIT_USAGE)
}

const program = new Command('storefront')
  .description('Storefront: a teaching commerce API. One store per student group.')
  .version(VERSION, '-v, --version')
  .exitOverride()
  // Commander's errors are printed by onFailure, one line each; its help (a command named without its subcommand) is printed as it is.
  .configureOutput({ outputError: () => {} })
  .showSuggestionAfterError(true)

const serveCommand = program.command('serve', { isDefault: true }).description('start the API server (the default); storefront serve --help lists its settings and their defaults')
for (const [name, s] of Object.entries(SETTINGS)) {
  const takesValue = !SWITCHES.has(name as SettingName)
  const option = new Option(takesValue ? `${s.flag} <value>` : s.flag, helpLine(s))
  serveCommand.addOption(option)
}
serveCommand.action(async (options: Record<string, string | boolean>) => {
  const flags: RawSettings = {}
  for (const [name, s] of Object.entries(SETTINGS)) {
    const key = new Option(s.flag).attributeName()
    if (options[key] !== undefined) flags[name as keyof RawSettings] = options[key]
  }
  try {
    await serve(loadConfig(flags, process.env))
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message)
    throw e
  }
})

program.command('version').description('print the version').action(() => console.log(VERSION))
addTeacherCommands(program)
addListenCommand(program)

/** A command that needs an argument, as the teacher would type it. */
const ARGUMENT_EXAMPLES: Record<string, string> = {
  backup: 'storefront backup class-backup.tgz',
  restore: 'storefront restore class-backup.tgz',
  import: 'storefront groups import class.csv',
}

/** Turns what a user can fix into one clear message and an exit code; anything else is a crash. */
function onFailure(e: unknown): never {
  if (e instanceof CommanderError) {
    if (e.exitCode === 0) process.exit(0)
    // `storefront groups` alone: commander has printed the command's help.
    if (e.code === 'commander.help') process.exit(EXIT_USAGE)
    // A mistyped command (`bakup x.tgz`) reaches the default command, serve, as its arguments.
    const word = program.args[0]
    const commands = program.commands.map((c) => c.name())
    if (e.code === 'commander.excessArguments' && word !== undefined && !word.startsWith('-') && !commands.includes(word)) {
      fail(`unknown command '${word}'; the commands are ${commands.join(', ')} (see storefront --help)`)
    }
    // `storefront --data d backup f.tgz`: the options came before the command, and went to serve.
    const given = process.argv.slice(2)
    const at = given.findIndex((arg) => commands.includes(arg))
    if ((e.code === 'commander.excessArguments' || e.code === 'commander.unknownOption') && at > 0) {
      const reordered = [...given.slice(at), ...given.slice(0, at)].map(shellQuoted).join(' ')
      fail(`write the command first, then its options: storefront ${reordered}`)
    }
    // `storefront backup` alone: what to add, as the command is typed.
    const example = given.map((arg) => ARGUMENT_EXAMPLES[arg]).find((x) => x !== undefined)
    if (e.code === 'commander.missingArgument' && example) fail(`${e.message.replace(/^error: /, '')}: for example ${example} (see storefront --help)`)
    // "(Did you mean --port?)" comes on a line of its own: one line here.
    fail(`${e.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')} (see storefront --help)`)
  }
  if (e instanceof ConfigError) fail(e.message)
  if (e instanceof CliFailure) {
    // A failure may quote what it was given (a class list's line, a backup's entry): escaped, as every printed value.
    process.stderr.write(e.lines.map((l) => `storefront: ${printable(l)}`).join('\n') + '\n')
    process.exit(e.exitCode)
  }
  throw e
}

// Before anything is written: the data folder and backups are for the teacher's user only.
createPrivately()
// No top-level await: the executable is compiled to bytecode, which takes CommonJS only, where there is none (scripts/build.ts).
program.parseAsync(process.argv).catch(onFailure)
