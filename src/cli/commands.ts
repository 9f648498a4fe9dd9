import type { Command } from 'commander'
import { readFileSync } from 'node:fs'
import { loadConfig } from '../config'
import { ActivityQuery } from '../features/activity/model'
import { activityCsv, activityReport } from '../features/activity/report'
import { BackupError, restore, backup } from '../features/backup/service'
import { importClassList, ImportError, parseClassList } from '../features/groups/import'
import { AppError } from '../kernel/errors'
import { endProgress, openDataDir, progressLine } from './data-dir'

/** A failure the user can fix: its lines go to stderr and the exit code is 1. */
export class CliFailure extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('\n'))
  }
}

const dataOption = ['--data <dir>', 'data folder [env DATA_DIR] (default ./data)'] as const

export function addTeacherCommands(program: Command) {
  const groups = program.command('groups').description('manage groups from the command line')
  groups
    .command('import <csv>')
    .description('create groups and members from a class list (CSV lines: group,rm,name; a header line is optional)')
    .option(...dataOption)
    .action(async (csv: string, options: { data?: string }) => {
      let text: string
      try {
        text = readFileSync(csv, 'utf8')
      } catch (e) {
        throw new CliFailure([`cannot read ${csv} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`])
      }
      const rows = await guard(() => parseClassList(text))
      const dir = openDataDir(options.data)
      try {
        const result = await guard(() => importClassList(dir.deps, rows, progressLine))
        endProgress()
        console.log(`imported ${rows.length} rows: ${result.groupsCreated} new groups, ${result.studentsAdded} new students, ${result.alreadyThere} already there`)
      } finally {
        await dir.close()
      }
    })

  program
    .command('backup <file>')
    .description('write a consistent copy of the database and media to <file> (.tar.gz); the server may keep running')
    .option(...dataOption)
    .action(async (file: string, options: { data?: string }) => {
      const dir = openDataDir(options.data)
      try {
        const result = await backup(dir.database.sqlite, dir.config.dataDir, file, progressLine)
        endProgress()
        console.log(`backup written to ${result.file} (${result.entries} entries)`)
      } finally {
        await dir.close()
      }
    })

  program
    .command('restore <file>')
    .description('replace the data folder with a backup (stop the server first); the old data is kept aside')
    .option(...dataOption)
    .action(async (file: string, options: { data?: string }) => {
      const { dataDir } = loadConfig({ dataDir: options.data }, process.env)
      try {
        const result = await restore(file, dataDir)
        console.log(`restored ${file} into ${dataDir}${result.aside ? `; the previous data is in ${result.aside}` : ''}`)
      } catch (e) {
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
    .option('--group <id>', 'only this group')
    .option('--csv', 'CSV instead of a table')
    .action(async (options: { data?: string; from?: string; to?: string; group?: string; csv?: boolean }) => {
      const dir = openDataDir(options.data)
      try {
        const query = ActivityQuery.safeParse({ from: options.from, to: options.to, groupId: options.group })
        if (!query.success) throw new CliFailure(query.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`))
        const report = await guard(() => activityReport(dir.deps, query.data))
        if (options.csv) return void process.stdout.write(activityCsv(report))
        const rows = [['group', 'rm', 'name', 'calls', 'errors', 'last call']]
        for (const g of report.groups) {
          for (const s of g.students) rows.push([g.name, s.rm, s.name, String(s.calls), String(s.errors), s.lastCallAt ?? '-'])
          rows.push([g.name, '', '(unattributed)', String(g.unattributed), '', ''])
          rows.push([g.name, '', '(group total)', String(g.calls), String(g.errors), g.lastCallAt ?? '-'])
        }
        const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
        console.log(`from ${report.from} to ${report.to}`)
        for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd())
      } finally {
        await dir.close()
      }
    })
}

/** Turns the service errors a user can cause into CLI failures. */
async function guard<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (e) {
    if (e instanceof ImportError) throw new CliFailure([e.message, ...e.problems.map((p) => `  ${p}`)])
    if (e instanceof AppError) throw new CliFailure([e.message])
    throw e
  }
}
