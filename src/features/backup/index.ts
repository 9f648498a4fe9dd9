// The backup feature's door: what the teacher's commands use of it.
export { backup, BackupError, RefusedBackup, restore } from './service'
