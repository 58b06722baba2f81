package serve

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus series. Names start with ka2_.
type metrics struct {
	reg *prometheus.Registry

	requests *prometheus.CounterVec   // route, code
	latency  *prometheus.HistogramVec // route
	evidence prometheus.Histogram
	utilised prometheus.Histogram

	corpusSources    prometheus.Gauge
	corpusGeneration prometheus.Gauge
	corpusLoaded     prometheus.Gauge
	lastReloadOK     prometheus.Gauge
	lastReload       prometheus.Gauge
	abandoned        prometheus.Gauge
	watchOK          prometheus.Gauge
	watchedFolders   prometheus.Gauge
	reloads          *prometheus.CounterVec // outcome
	loadSeconds      prometheus.Histogram

	maxInFlight    prometheus.Gauge
	maxQueue       prometheus.Gauge
	queueWaitBound prometheus.Gauge
	queueWait      prometheus.Histogram
	rejected       *prometheus.CounterVec // reason

	// counters caches the request counter of each route and status, so
	// the hot path does not hash label values.
	counters sync.Map // routeCode → prometheus.Counter
}

type routeCode struct {
	route string
	code  int
}

func newMetrics(reg *prometheus.Registry, admit *admission) *metrics {
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	m := &metrics{reg: reg}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ka2_http_requests_total", Help: "HTTP requests answered, by route and status code.",
	}, []string{"route", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "ka2_http_request_duration_seconds",
		Help:    "Time from the request's arrival at the handler to the end of its response, by route.",
		Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"route"})
	m.evidence = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "ka2_contract_evidence_records", Help: "Evidence records per contract built (within budget or not).",
		Buckets: []float64{0, 1, 2, 3, 5, 8, 13, 21, 34},
	})
	m.utilised = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "ka2_contract_budget_utilisation_ratio",
		Help:    "Total input over the limit W − R, per contract built; above 1 is over budget.",
		Buckets: []float64{.1, .2, .3, .4, .5, .6, .7, .8, .9, .95, 1, 1.25, 1.5, 2},
	})
	// The gauges, each set where what it measures changes.
	for _, g := range []struct {
		to         *prometheus.Gauge
		name, help string
	}{
		{&m.corpusSources, "ka2_corpus_sources", "Sources in the corpus serving now."},
		{&m.corpusGeneration, "ka2_corpus_generation", "Snapshots served so far; the serving one's number."},
		{&m.corpusLoaded, "ka2_corpus_loaded_timestamp_seconds", "When the corpus serving now was loaded, in Unix seconds."},
		{&m.lastReloadOK, "ka2_corpus_last_reload_ok", "1 when the last load succeeded, 0 when it failed or timed out and an older corpus serves."},
		{&m.lastReload, "ka2_corpus_last_reload_timestamp_seconds", "When the last reload started, whatever its outcome, in Unix seconds."},
		{&m.abandoned, "ka2_corpus_abandoned_loads", "Loads of reloads that timed out and are still running (a read that blocks stays here); their results are dropped."},
		{&m.watchOK, "ka2_corpus_watch_ok", "1 while every folder of the corpus is watched, 0 while some cannot be and the corpus is reloaded every poll interval instead."},
		{&m.watchedFolders, "ka2_corpus_watched_folders", "Folders watched for changes of the corpus."},
		{&m.maxInFlight, "ka2_http_requests_in_flight_max", "The bound on API requests answered at once (the max-in-flight setting)."},
		{&m.maxQueue, "ka2_http_requests_queued_max", "The bound on API requests waiting for their turn (the max-queue setting; 0: none wait)."},
		{&m.queueWaitBound, "ka2_http_request_queue_wait_bound_seconds", "The longest an API request waits for its turn before it is shed (the queue-wait setting)."},
	} {
		*g.to = prometheus.NewGauge(prometheus.GaugeOpts{Name: g.name, Help: g.help})
		reg.MustRegister(*g.to)
	}
	// Read from the admission's slots when scraped, not counted again by
	// every request.
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "ka2_http_requests_in_flight", Help: "API requests (/v1/…) being answered now."},
		func() float64 { return float64(len(admit.slots)) }))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "ka2_http_requests_queued", Help: "API requests waiting now for their turn, as many as the max-in-flight setting allows being in flight."},
		func() float64 { return float64(admit.queued.Load()) }))
	m.queueWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "ka2_http_request_queue_wait_seconds", Help: "Time API requests that found every slot taken waited for one, whether they got it or were shed.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
	})
	m.rejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ka2_http_requests_rejected_total", Help: "API requests answered 503 overloaded, by reason: queue_full (as many as the max-queue setting were waiting), wait_predicted (it would have waited longer than the queue-wait setting), wait_passed (it waited that long)."},
		[]string{"reason"})
	for _, r := range []string{shedQueueFull, shedPredicted, shedWaited} {
		m.rejected.WithLabelValues(r)
	}
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ka2_corpus_reloads_total", Help: "Corpus reloads by outcome: ok, unchanged, error or timeout."}, []string{"outcome"})
	m.loadSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "ka2_corpus_load_duration_seconds", Help: "Time to load and index the corpus on a reload.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
	})
	reg.MustRegister(m.requests, m.latency, m.evidence, m.utilised, m.reloads, m.loadSeconds, m.rejected, m.queueWait)
	for _, o := range []ReloadOutcome{ReloadOK, ReloadUnchanged, ReloadFailed, ReloadTimedOut} {
		m.reloads.WithLabelValues(string(o))
	}
	return m
}

// request counts one answered request of route r.
func (m *metrics) request(r *route, code int, seconds float64) {
	k := routeCode{r.name, code}
	c, ok := m.counters.Load(k)
	if !ok {
		c, _ = m.counters.LoadOrStore(k, m.requests.WithLabelValues(r.name, strconv.Itoa(code)))
	}
	c.(prometheus.Counter).Inc()
	r.latency.Observe(seconds)
}
