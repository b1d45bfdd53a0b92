import { falsePositive } from './false-positive'
import { patternPause } from './pattern-pause'
import { recurringIncident } from './recurring-incident'
import { repeatedDrift } from './repeated-drift'
import { repeatedUnguarded } from './repeated-unguarded'
import { routeAround } from './route-around'
import type { Candidate, DetectInput, PatternDetector } from './types'

export const DETECTORS: PatternDetector[] = [
  repeatedUnguarded,
  falsePositive,
  patternPause,
  repeatedDrift,
  recurringIncident,
  routeAround,
]

export function detectAll(input: DetectInput): Candidate[] {
  return DETECTORS.flatMap((d) => d.detect(input))
}
export type { Candidate, DetectInput, PatternDetector } from './types'
