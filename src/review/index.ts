/**
 * Review: which live sessions of a project are coupled (they change the same files, one's
 * changes import the other's, one's tests exercise the other's code), each group reviewed as one
 * combined diff whose hunks name the session that wrote them, per-file review state that resets
 * when a file changes, and comments that go back to the writer as a reply.
 */
export { coupledGroups, type Edge, type Group, type MemberWork, type Reason } from './coupling.js';
export { importSpecifiers, isCode, isTest, mentions, resolveSpecifier, resolvedImports } from './imports.js';
export { attribute, hunkText, parseDiff, type DiffLine, type FileDiff, type Hunk } from './attribution.js';
export { AmbiguousProjectError, ReviewGroupNotFoundError, ReviewProjectNotFoundError } from './errors.js';
export { ReviewService, type ReviewDeps } from './service.js';
export { watchGroups } from './watch.js';
export type { PushedMember } from './groups.js';
