import type { Command } from 'commander'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { constants } from 'node:os'
import { resolve } from 'node:path'
import { loadConfig } from '../config'
import { activityCsv, ActivityQuery } from '../features/activity'
import { CSV_BOM } from '../kernel/csv'
import { BackupError, RefusedBackup, restore } from '../features/backup'
import { parseClassList } from '../features/groups'
import { decodeTextFile } from '../kernel/text-file'
import { printable, printableValues } from '../kernel/control-characters'
import { DATA_NAMES, dataPath } from '../kernel/data-dir'
import { fileProblem, shellQuoted } from '../kernel/file-messages'
import { platform } from '../kernel/platform'
import { asCliFailure, CliFailure, endProgress, jobOnDataDir, type Job } from './jobs'
import { pluralize } from '../kernel/plural'

const dataOption = ['--data <dir>', 'data folder [env DATA_DIR] (default ./data)'] as const

export function addTeacherCommands(program: Command) {
  const groups = program.command('groups').description('manage groups from the command line')
  groups
    .command('import <csv>')
    .description('create groups and members from a class list (CSV lines: group,rm,name, or separated by semicolons; a header line is optional; UTF-8 or Windows-1252); into a new data folder if --data names none')
    .option(...dataOption)
    .action(async (csv: string, options: { data?: string }) => {
      let bytes: Uint8Array
      try {
        bytes = readFileSync(csv)
      } catch (e) {
        const missing = (e as NodeJS.ErrnoException).code === 'ENOENT' ? ': check its name, or give its whole path' : ''
        throw new CliFailure([`cannot read ${printable(csv)} (${fileProblem(e)})${missing}`])
      }
      const { text, encoding } = decodeTextFile(bytes)
      const rows = await parsed(text)
      if (encoding !== 'UTF-8') console.log(`${csv} is not UTF-8: read as ${encoding}, as a spreadsheet on Windows saves ${encoding === 'UTF-16' ? '"Unicode Text"' : '"CSV"'}`)
      const { dataDir, result, isNew } = await onDataDir(options.data, { kind: 'import', rows })
      console.log(
        `imported ${pluralize(rows.length, 'row')} into ${dataDir}: ${pluralize(result.groupsCreated, 'new group')}, ${pluralize(result.studentsAdded, 'new student')}, ${result.studentsMoved} moved, ${result.studentsRenamed ? `${result.studentsRenamed} renamed, ` : ''}${result.alreadyThere} already there`,
      )
      // A class prepared before the first start; or a --data that missed the server's folder.
      if (isNew) console.log(`${dataDir} held no class: it is a new data folder. Start the server on it (--data ${shellQuoted(dataDir)}), or import into the folder your server uses.`)
      for (const m of result.moved) {
        const renamed = m.renamedFrom === undefined ? '' : `, renamed from '${m.renamedFrom}'`
        console.log(`line ${m.line}: moved RM ${m.rm} from group '${m.from}' to '${m.to}'${renamed}; their sessions ended and their password is the RM again`)
      }
      for (const r of result.renamed) console.log(`line ${r.line}: RM ${r.rm} renamed from '${r.from}' to '${r.to}'`)
      for (const name of result.groupsLeftEmpty) console.log(`group '${name}' has no members left`)
    })

  program
    .command('backup <file>')
    .description('write a consistent copy of the database and media to <file> (.tar.gz); the server may keep running')
    .option(...dataOption)
    .action(async (file: string, options: { data?: string }) => {
      exitOnSignal('the backup is cancelled: its partial file is removed, and nothing is written to the target')
      const { dataDir, result } = await onDataDir(options.data, { kind: 'backup', file: resolve(file) })
      console.log(`backup of ${dataDir} written to ${result.file} (${pluralize(result.entries, 'entry', 'entries')}${result.replaced ? '; it replaces the backup that was there' : ''})`)
    })

  program
    .command('restore <file>')
    .description('replace the data folder with a backup (stop the server first); the old data is kept aside. A file holding anything a backup does not write is refused whole (exit code 2)')
    .option(...dataOption)
    .action(async (file: string, options: { data?: string }) => {
      const { dataDir } = loadConfig({ dataDir: options.data }, process.env)
      exitOnSignal('the restore is cancelled: the data folder is left as it was')
      try {
        const result = await restore(file, dataDir)
        console.log(`restored ${file} into ${dataDir}${result.aside ? `; the previous data is in ${result.aside}` : ''}`)
        // A backup holds no admin token: a folder restored anew has none until the next start makes one.
        if (!existsSync(dataPath(dataDir, 'adminToken'))) console.log('a backup holds no admin token: the next start makes a new one and prints it')
      } catch (e) {
        if (e instanceof RefusedBackup) throw new CliFailure([e.message], 2)
        if (e instanceof BackupError) throw new CliFailure([e.message])
        throw e
      }
    })

  program
    .command('activity')
    .description('calls per group and per student, as a table or CSV')
    .option(...dataOption)
    .option('--from <date>', 'start (ISO date, inclusive)')
    .option('--to <date>', 'end (ISO date; a date alone includes that day)')
    .option('--group <group>', "only this group: its id (grp_...) or its name")
    .option('--csv', 'CSV instead of a table (to a file, it starts with the mark that tells Excel it is UTF-8)')
    .option('--separator <comma|semicolon>', 'with --csv, what splits the cells: semicolon for Excel in Portuguese', 'comma')
    .action(async (options: { data?: string; from?: string; to?: string; group?: string; csv?: boolean; separator: string }) => {
      // A teacher knows the group's name; the API's id is for apps.
      const byName = options.group !== undefined && !options.group.startsWith('grp_')
      const query = ActivityQuery.safeParse({ from: options.from, to: options.to, groupId: byName ? undefined : options.group, separator: options.separator })
      // A value the command does not take is a usage error, as a flag's is: exit code 2.
      if (!query.success) throw new CliFailure(query.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`), 2)
      const { result: report } = await onDataDir(options.data, { kind: 'activity', query: query.data, ...(byName ? { groupName: options.group } : {}) })
      // The byte order mark is for a file (`> activity.csv`): a terminal would show it as a stray character.
      if (options.csv) return void process.stdout.write((process.stdout.isTTY ? '' : CSV_BOM) + activityCsv(report, query.data.separator))
      const rows = [['group', 'rm', 'name', 'calls', 'errors', 'last call']]
      for (const g of report.groups) {
        for (const s of g.students) rows.push([g.name, s.rm, s.name, String(s.calls), String(s.errors), s.lastCallAt ?? '-'])
        rows.push([g.name, '', '(unattributed)', String(g.unattributed), String(g.unattributedErrors), ''])
        rows.push([g.name, '', '(shop front)', String(g.shopFront.calls), String(g.shopFront.errors), g.shopFront.lastCallAt ?? '-'])
        rows.push([g.name, '', '(group total)', String(g.calls), String(g.errors), g.lastCallAt ?? '-'])
      }
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
      console.log(`from ${report.from} to ${report.to}`)
      for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd())
    })
}

/**
 * Ctrl-C (or a kill) in the middle of a backup or restore ends the process through process.exit, so
 * the copy of the database it was working on is removed on the way out (backup/service.ts); a backup
 * a running server makes for the command stops when the command goes (cli/jobs.ts). Says `what` then.
 */
function exitOnSignal(what: string) {
  // 128 + the signal's number, as a shell reports a process a signal ended.
  for (const signal of platform.stopSignals) {
    process.once(signal, () => {
      endProgress()
      process.stderr.write(`storefront: stopped; ${what}\n`)
      process.exit(128 + constants.signals[signal])
    })
  }
}

/** A class list's rows, or its problems by line as a CLI failure. */
async function parsed(text: string) {
  try {
    return await parseClassList(text)
  } catch (e) {
    throw asCliFailure(e)
  }
}

/**
 * Whether the data folder holds a class (its database). A folder this user may not look into, or a
 * file given as the folder, is said so, not taken for an empty folder.
 */
function holdsClass(dataDir: string): boolean {
  try {
    return statSync(dataPath(dataDir, 'database')).isFile()
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return false
    const next = code === 'EACCES' || code === 'EPERM' ? 'run the command as the user who runs the server, or give' : 'give'
    throw new CliFailure([`cannot look into the data folder ${printable(dataDir)} (${fileProblem(e)}): ${next} the data folder your server uses, with --data <dir> or DATA_DIR`])
  }
}

/**
 * The job done by the server running on the folder, or here on the folder opened (cli/jobs.ts), ready
 * to print: its result holds what students typed, which a database an older version wrote may hold
 * with control characters, so every string in it has them escaped (the CSV too: it goes to a terminal
 * as often as to a file).
 */
async function onDataDir<K extends Job['kind']>(data: string | undefined, job: Extract<Job, { kind: K }>) {
  const { dataDir } = loadConfig({ dataDir: data }, process.env)
  // Only an import may make a class: a backup or a report of a folder that holds none is a wrong --data.
  const isNew = !holdsClass(dataDir)
  if (isNew && job.kind !== 'import') {
    throw new CliFailure([`${printable(dataDir)} holds no class (no ${DATA_NAMES.database} in it): give the data folder your server uses, with --data <dir> or DATA_DIR`])
  }
  try {
    return { dataDir: printable(dataDir), isNew, result: printableValues(await jobOnDataDir(dataDir, job)) }
  } finally {
    endProgress()
  }
}
