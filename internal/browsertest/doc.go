// Package browsertest decides whether what ka2 draws for people works in a
// real browser: its tests open the timeline HTML, an HTML regress report
// with failures and the serve preview page in headless Chromium (through
// chromedp), check the DOM and basic accessibility, and save screenshots.
//
// The tests skip when no Chromium is found, unless the CI environment
// variable is set: then a missing browser fails them. KA2_CHROMIUM names
// the browser binary; KA2_SCREENSHOTS the folder screenshots go to
// (default: a temporary folder, named in the test log). With
// GOLDIE_UPDATE set, docs/timeline.md's screenshots under docs/ are
// written again.
package browsertest
