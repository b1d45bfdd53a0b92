import * as family from '../../../lib/core/actions/publish'
import { familyTable } from './table'

familyTable(family, {
  valid: [
    ['npm publish --access public', 'package_publish'],
    ['pnpm publish', 'package_publish'],
    ['yarn npm publish', 'package_publish'],
    ['yarn publish', 'package_publish'],
    ['cargo publish', 'package_publish'],
    ['python -m twine upload dist/*', 'package_publish'],
    ['twine upload dist/*', 'package_publish'],
    ['gem push my-gem-1.0.gem', 'package_publish'],
    ['poetry publish --build', 'package_publish'],
    ['flit publish', 'package_publish'],
    ['hatch publish', 'package_publish'],
    ['uv publish', 'package_publish'],
    ['vsce publish', 'package_publish'],
    ["sh -c 'cd repo && npm publish'", 'package_publish'],
    ['node -e "require(\'child_process\').execSync(\'npm publish\')"', 'package_publish'],
  ],
  invalid: [
    'npm run build',
    'npm test',
    'npm publish --help',
    'pnpm install',
    'yarn add lodash',
    'cargo build --release',
    'twine check dist/*',
    'gem build my.gemspec',
    'poetry install',
    'flit build',
    'hatch build',
    'uv pip install requests',
    'vsce package',
  ],
})
