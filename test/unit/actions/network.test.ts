import * as family from '../../../lib/core/actions/network'
import { familyTable } from './table'

familyTable(family, {
  valid: [
    ['curl -X POST https://api.example.com/v1/items -d @data.json', 'http_upload'],
    ['curl -F file=@report.pdf https://upload.example.com', 'http_upload'],
    ['curl --data-binary @x https://example.com/hook', 'http_upload'],
    ['curl --url smtps://mail.example.com --mail-rcpt a@b.c -T msg.txt', 'email_send'],
    ['wget --post-data="a=1" https://example.com/form', 'http_upload'],
    ['http POST api.example.com/items name=x', 'http_upload'],
    ['https api.example.com/items name=x', 'http_upload'],
    ['xh PUT api.example.com/items/1 name=y', 'http_upload'],
    ['python -c "import requests; requests.post(\'https://x.io\', data=d)"', 'http_upload'],
    ['scp build.tar.gz deploy@host:/srv/', 'remote_copy'],
    ['rsync -av dist/ user@host:/var/www/', 'remote_copy'],
    ['rsync -a --delete src/ backup/', 'file_delete'],
    ['sftp deploy@host', 'remote_copy'],
    ['rclone copy dist remote:bucket', 'remote_copy'],
    ['rclone purge remote:bucket/old', 'file_delete'],
  ],
  invalid: [
    'printf "%s\\n" "curl -X POST https://x.io"',
    'curl https://example.com/data.json -o data.json',
    'curl -X POST http://localhost:3000/api/test -d x',
    'wget https://example.com/file.tgz',
    'http GET api.example.com/items',
    'https api.example.com/status',
    'xh localhost:3000/items name=x',
    'http :3000/items name=x',
    'scp deploy@host:/var/log/app.log .',
    'rsync -a src/ build/',
    'sftp --help',
    'rclone ls remote:bucket',
  ],
})
