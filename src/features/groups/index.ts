// The groups feature's door: what the rest of the app uses of it.
export { ImportError, importClassList, parseClassList, type ImportRow } from './import'
export { GroupIdParams } from './model'
export { groupRoutes } from './routes'
export { getGroup, groupIdNamed } from './service'
