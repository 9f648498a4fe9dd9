import { sql, type SQLWrapper } from 'drizzle-orm'

/**
 * `column in (the ids)`, with the ids bound as one JSON array to the placeholder `ids`: a statement
 * built once serves any number of ids (drizzle's `inArray` makes new SQL text for every count).
 */
export const inJsonIds = (column: SQLWrapper) => sql`${column} in (select value from json_each(${sql.placeholder('ids')}))`
