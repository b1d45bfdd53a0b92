// Formatting or overwriting disks and partition tables: always catastrophic.

import type { Detector, FamilyMeta } from './types'
import { writesTo } from './fs-write'

export const meta: FamilyMeta = {
  id: 'disk',
  classes: ['irreversible'],
  patterns: ['disk_format'],
  description: 'Formatting or overwriting disks (mkfs, dd of=/dev/…, wipefs, fdisk, parted, shred /dev/…)',
  examples: ['mkfs.ext4 /dev/sdb1', 'dd if=/dev/zero of=/dev/sda', 'wipefs -a /dev/nvme0n1'],
}

const format: Detector = (c, _inv, f) => c.add('disk_format', f.cmd, true)

export const programs: Record<string, Detector> = {
  // The dispatcher files every `mkfs.<fs>` under `mkfs`.
  mkfs: format,
  mkswap: format,
  dd: (c, inv, f) => {
    const of = inv.args.find((a) => a.startsWith('of='))?.slice(3)
    if (!of) return
    if (/^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|loop|mapper)/.test(of)) c.add('disk_format', f.cmd, true)
    else writesTo(c, f, [of], !inv.args.includes('conv=notrunc'))
  },
  wipefs: format,
  fdisk: (c, inv, f) => {
    if (!inv.args.includes('-l')) c.add('disk_format', f.cmd, true)
  },
  sfdisk: format,
  parted: (c, inv, f) => {
    if (!inv.args.includes('-l') && !inv.args.includes('print')) c.add('disk_format', f.cmd, true)
  },
  sgdisk: format,
  diskutil: (c, inv, f) => {
    if (/^(erase|reformat|partition|zero|secureErase)/i.test(inv.args[0] ?? '')) c.add('disk_format', f.cmd, true)
  },
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
