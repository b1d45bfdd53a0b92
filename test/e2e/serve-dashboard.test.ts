// The dashboard in headless Chromium (Debian's, driven by playwright-core): recent cases, statistics by
// offense, verdict and severity over time, the log's size and latest checkpoint, filters that re-query;
// a case's text is shown as text, never run as markup. RATCHET_DASHBOARD_SCREENSHOT=FILE saves a picture.
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  Agent,
  caseBody,
  enroll,
  freshStore,
  post,
  skipped,
  startServer,
  submission,
  type Store,
  type TestServer,
} from '../support/serve'

const CHROMIUM = '/usr/bin/chromium'
const HAVE = fs.existsSync(CHROMIUM)
if (!HAVE) skipped('the dashboard in headless Chromium', `no ${CHROMIUM} (apt-get install chromium; .ci/run does)`)

describe.skipIf(!HAVE)('the dashboard', () => {
  let store: Store
  let srv: TestServer
  let browser: import('playwright-core').Browser
  beforeAll(async () => {
    store = await freshStore('sqlite')
    srv = await startServer(store)
    const days = ['2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20']
    const offenses = [
      { offense_type: 'route_around', offense_name: 'Routing Around a Block', severity: 'severe' },
      { offense_type: 'drift', offense_name: 'Drift From the Request', severity: 'minor' },
      { offense_type: 'answered_with_changes', offense_name: 'Answered With Changes', severity: 'moderate' },
    ]
    for (let g = 0; g < 2; g++) {
      const a = new Agent()
      await enroll(store.db, a)
      for (let i = 0; i < 9; i++) {
        const o = offenses[(i + g) % 3]
        const guilty = (i + g) % 4 !== 0
        a.append(
          'case',
          caseBody(a.agent, {
            ...o,
            verdict: guilty ? 'GUILTY' : 'NOT GUILTY',
            vote: guilty ? '2-1' : '1-2',
            timestamp: `${days[i % 4]}T1${i}:00:00.000Z`,
            primary_failure:
              i === 8 && g === 1
                ? '<img src=x onerror="document.body.dataset.pwned=1"><script>document.body.dataset.pwned=2</script> pushed anyway'
                : `Finding ${g}-${i}: acted past the request.`,
          }),
        )
      }
      expect((await post(srv.url, submission(srv.url, a.envelopes, a.key))).status).toBe(201)
    }
    const { chromium } = await import('playwright-core')
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await srv?.close()
    await store?.drop()
  })

  it('shows the record: counts, the log, charts over time, recent cases; filters re-query; case text stays text', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    await page.goto(`${srv.url}/`)
    await page.waitForSelector('body[data-loaded="yes"]', { timeout: 15_000 })
    expect(await page.textContent('#total')).toBe('18')
    expect(await page.textContent('#guilty')).toBe(String(18 - 5))
    expect(await page.textContent('#logsize')).toBe('20')
    expect(await page.textContent('#checkpoint')).toMatch(
      /^test\.example\/ratchet-cases\n20\n[A-Za-z0-9+/]{43}=\n\n— test\.example\/ratchet-cases /,
    )
    expect(await page.textContent('#verifier')).toMatch(/^Verifier key: test\.example\/ratchet-cases\+[0-9a-f]{8}\+/)
    expect(await page.locator('#byoffense .bar').count()).toBe(3)
    expect(await page.locator('#byseverity .bar .k').allTextContents()).toEqual(
      expect.arrayContaining(['minor', 'moderate', 'severe']),
    )
    expect(await page.locator('#timeline rect').count()).toBe(6) // four days; 11-18 and 11-19 all guilty
    expect(await page.locator('#legend span').allTextContents()).toEqual(['GUILTY', 'NOT GUILTY'])
    await page.selectOption('#tgroup', 'offense')
    expect(await page.locator('#legend span').allTextContents()).toEqual([
      'answered_with_changes',
      'drift',
      'route_around',
    ])
    expect(await page.locator('#timeline rect title').first().textContent()).toMatch(/^2026-11-17 \w+: \d+$/)
    await page.selectOption('#tgroup', 'severity')
    expect(await page.locator('#legend span').allTextContents()).toEqual(['minor', 'moderate', 'severe'])
    expect(await page.locator('#cases tr').count()).toBe(18)
    const hostile = page.locator('#cases td.pf', { hasText: 'pushed anyway' })
    expect(await hostile.textContent()).toBe(
      '<img src=x onerror="document.body.dataset.pwned=1"><script>document.body.dataset.pwned=2</script> pushed anyway',
    )
    expect(await page.evaluate(() => document.body.dataset.pwned)).toBeUndefined()
    expect(await page.locator('#cases img, #cases script').count()).toBe(0)
    await page.selectOption('#fverdict', 'NOT GUILTY')
    await page.waitForFunction(() => document.querySelectorAll('#cases tr').length === 5)
    expect(await page.locator('#cases .pill.GUILTY').count()).toBe(0)
    await page.selectOption('#fseverity', 'severe')
    await page.waitForFunction(() =>
      [...document.querySelectorAll('#cases tr')].every((tr) => tr.textContent!.includes('severe')),
    )
    await page.selectOption('#fverdict', '')
    await page.selectOption('#fseverity', '')
    await page.waitForFunction(() => document.querySelectorAll('#cases tr').length === 18)
    const shot = process.env.RATCHET_DASHBOARD_SCREENSHOT
    if (shot) await page.screenshot({ path: shot, fullPage: true })
    expect(errors).toEqual([])
    await page.close()
  })

  it('says so when the API cannot be reached, instead of showing stale numbers', async () => {
    const page = await browser.newPage()
    await page.route('**/api/v1/public/statistics', (r) => r.fulfill({ status: 503, body: '{}' }))
    await page.goto(`${srv.url}/dashboard`)
    await page.waitForSelector('body[data-loaded="error"]', { timeout: 15_000 })
    expect(await page.textContent('#error')).toBe('could not load: /api/v1/public/statistics: 503')
    await page.close()
  })
})
