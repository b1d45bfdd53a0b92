// The named patterns a guardrail's `pattern` can refer to. Each belongs to one of the seed's trigger
// classes; a guardrail may also name a class itself (`public_surface`) to match all of its patterns.

// `secret_access` and `local_change` are recorded, not risks by themselves: no built-in rule names them. A secret
// read matters when data then leaves the machine (`secret_send`); a local commit when its repository is public.
export const ACTION_CLASSES = [
  'public_surface',
  'irreversible',
  'stale_data',
  'prior_incident',
  'scope_beyond_request',
  'self_protection',
  'secret_access',
  'local_change',
] as const
export type ActionClass = (typeof ACTION_CLASSES)[number]

export const CLASS_LABEL: Record<ActionClass, string> = {
  public_surface: 'public surface',
  irreversible: 'irreversible',
  stale_data: 'stale data',
  prior_incident: 'prior incident',
  scope_beyond_request: 'scope beyond request',
  self_protection: "Ratchet's own configuration",
  secret_access: 'secret access',
  local_change: 'local change',
}

export interface PatternInfo {
  class: ActionClass
  description: string
}

export const PATTERNS: Record<string, PatternInfo> = {
  git_push: { class: 'public_surface', description: 'git push to a remote' },
  pr_or_issue_create: {
    class: 'public_surface',
    description: 'creating or merging a PR, issue, release, gist or repo (gh, glab, hub)',
  },
  package_publish: {
    class: 'public_surface',
    description: 'publishing a package (npm/yarn/pnpm publish, cargo publish, twine upload, gem push, …)',
  },
  container_push: { class: 'public_surface', description: 'pushing a container image (docker/podman push)' },
  email_send: { class: 'public_surface', description: 'sending email (mail, sendmail, smtplib, …)' },
  http_upload: { class: 'public_surface', description: 'HTTP POST/PUT/upload to an external host' },
  deploy: {
    class: 'public_surface',
    description: 'deploying (vercel, netlify, fly, kubectl apply, terraform apply, helm, …)',
  },
  remote_copy: {
    class: 'public_surface',
    description: 'copying files to another host (scp, rsync host:, aws s3 cp, gsutil, rclone)',
  },
  external_post: { class: 'public_surface', description: 'an MCP tool that posts, sends or publishes' },
  network_send: {
    class: 'public_surface',
    description: 'sending data over a raw socket (nc/ncat/socat/telnet with input, > /dev/tcp/…)',
  },
  public_server: {
    class: 'public_surface',
    description:
      'serving the project beyond this machine (a file server on every interface, git daemon, a listener fed a file, a tunnel, a dev server on 0.0.0.0)',
  },
  secret_send: {
    class: 'public_surface',
    description:
      'sending a secret off the machine (an upload, copy or socket send of .env, a key or a credential store, or any send after one was read in the session)',
  },
  file_delete: {
    class: 'irreversible',
    description: 'deleting files (rm, find -delete, xargs rm, unlink, shred, interpreter one-liners)',
  },
  git_discard: {
    class: 'irreversible',
    description: 'discarding work (reset --hard, clean -f, checkout/restore of the tree, stash drop/clear)',
  },
  git_history_rewrite: {
    class: 'irreversible',
    description: 'rewriting history (force push, filter-branch, reflog expire, update-ref -d)',
  },
  git_ref_delete: { class: 'irreversible', description: 'deleting branches or tags, locally or on a remote' },
  package_unpublish: {
    class: 'irreversible',
    description: 'unpublishing or yanking a published package version (npm unpublish, cargo yank, gem yank)',
  },
  db_destroy: {
    class: 'irreversible',
    description: 'destroying data (DROP/DELETE/TRUNCATE, dropdb, FLUSHALL, db:drop)',
  },
  infra_destroy: {
    class: 'irreversible',
    description: 'destroying infrastructure (terraform destroy, kubectl delete, cloud delete/terminate, docker prune)',
  },
  disk_format: {
    class: 'irreversible',
    description: 'formatting or overwriting disks (mkfs, dd of=/dev/…, wipefs, fdisk)',
  },
  unreadable: {
    class: 'irreversible',
    description:
      'a command whose effect cannot be read (computed command words, eval, code piped into a shell, functions, nesting past the limit): judged by its worst reading',
  },
  remote_code: {
    class: 'irreversible',
    description:
      'running code fetched from the network (curl … | sh, bash <(curl …), a downloaded script run in the same command): it could do anything, so a human decides unless the user named its source',
  },
  irreversible_mcp: { class: 'irreversible', description: 'an MCP tool that deletes, drops or destroys' },
  remote_delete: {
    class: 'irreversible',
    description: 'deleting on another host through its API (curl -X DELETE, gh api -X DELETE, an MCP DELETE request)',
  },
  payment: {
    class: 'irreversible',
    description: 'moving money: refunds, charges, payouts and transfers (stripe, payment APIs, payment MCP tools)',
  },
  stale_write: {
    class: 'stale_data',
    description: 'changing an existing file that was not read in the current context',
  },
  outside_project: { class: 'scope_beyond_request', description: 'changing files outside the project folder' },
  unrequested_web: { class: 'scope_beyond_request', description: 'web access the user’s request did not mention' },
  unrequested_publish: {
    class: 'scope_beyond_request',
    description: 'publishing when the user’s request did not mention it',
  },
  against_request: {
    class: 'scope_beyond_request',
    description:
      'changing something after the user asked a question, asked to investigate, or said not to change anything yet',
  },
  against_constraint: {
    class: 'scope_beyond_request',
    description:
      'changing what the user’s constraint protects ("don’t touch the migrations"), or doing what it forbids by name ("do not push")',
  },
  machine_change: {
    class: 'scope_beyond_request',
    description:
      'changing the machine outside the project during a project task (global git or package-manager config, system packages, global installs)',
  },
  planted_authority: {
    class: 'scope_beyond_request',
    description:
      "instructions for later sessions (CLAUDE.md, AGENTS.md, …) that claim the user's approval, or tell a later agent to retry what was denied or get around the guard",
  },
  planted_code: {
    class: 'scope_beyond_request',
    description:
      'a file a tool runs implicitly later, outside the sandbox (sitecustomize.py, a .pth that imports, an .envrc that runs commands, a task run on opening the folder)',
  },
  sandbox_bypass: {
    class: 'scope_beyond_request',
    description:
      'a command that asks to run outside the OS sandbox (dangerouslyDisableSandbox): more authority than was granted, so a human decides',
  },
  secret_access: {
    class: 'secret_access',
    description:
      'reading credentials (.env, SSH keys, cloud/forge credentials, keychains, environment dumps): recorded, quiet alone',
  },
  git_commit: { class: 'local_change', description: 'git add or commit: local until pushed (a push is git_push)' },
  ratchet_state_edit: { class: 'self_protection', description: "editing Ratchet's state, rules or hook registrations" },
  ratchet_key_read: {
    class: 'self_protection',
    description: "reading Ratchet's private keys or Telegram token (the config folder outside the project)",
  },
  // Named patterns from the seed's guardrails.json, so its file works as-is.
  commit_to_public_repo: {
    class: 'public_surface',
    description:
      'git push, i.e. commits reaching a remote; also a local add/commit where config publicRemotes says the remote is public (the seed’s GR-002)',
  },
  timezone_dependent_action: {
    class: 'irreversible',
    description: 'creating cron jobs or time-based automation (the seed’s GR-003)',
  },
}

const KNOWN = new Set<string>([...Object.keys(PATTERNS), ...ACTION_CLASSES, 'catastrophic'])

export function isKnownPattern(name: string): boolean {
  return KNOWN.has(name)
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [PATTERNS]) Object.setPrototypeOf(table, null)
