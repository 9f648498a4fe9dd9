// The groups feature's door: what the rest of the app uses of it.
export { ImportError, parseClassList, type ImportRow } from './class-list'
export { importClassList } from './import'
export { GroupIdParams } from './model'
export { groupRoutes } from './routes'
export { getGroup, groupIdNamed, groupNotFound } from './service'
