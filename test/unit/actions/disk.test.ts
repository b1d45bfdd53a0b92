import * as family from '../../../lib/core/actions/disk'
import { familyTable } from './table'

familyTable(family, {
  valid: [
    ['mkfs.ext4 /dev/sdb1', 'disk_format', true],
    ['mkfs.ext4 /dev/sda1', 'disk_format', true],
    ['mkfs -t xfs /dev/sdc', 'disk_format', true],
    ['mkswap /dev/sdb2', 'disk_format', true],
    ['dd if=/dev/zero of=/dev/sda bs=1M', 'disk_format', true],
    ['dd if=/dev/urandom of=/dev/sdb', 'disk_format', true],
    ['wipefs -a /dev/nvme0n1', 'disk_format', true],
    ['fdisk /dev/sda', 'disk_format', true],
    ['sfdisk /dev/sda < layout', 'disk_format', true],
    ['parted /dev/sda mklabel gpt', 'disk_format', true],
    ['sgdisk --zap-all /dev/sda', 'disk_format', true],
    ['diskutil eraseDisk APFS X disk2', 'disk_format', true],
    ['shred /dev/sda', 'disk_format', true],
    ['dd if=x.img of=~/backup.img', 'outside_project'],
    ['dd if=/dev/zero of=existing.txt count=1', 'stale_write'],
  ],
  invalid: [
    'mkfs.ext4 --help',
    'mkfs --version',
    'mkswap --help',
    'dd if=disk.img of=copy.img',
    'dd if=/dev/sda bs=512 count=1',
    'wipefs --help',
    'fdisk -l',
    'sfdisk --version',
    'parted -l',
    'parted /dev/sda print',
    'sgdisk --help',
    'diskutil list',
  ],
})
