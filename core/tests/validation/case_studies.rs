//! Issue 16, item 7: the Ironwood guide's case studies (64 chips, 4×4×4), each planned
//! before and after its change (`core/src/validation/case_studies.rs` states every
//! assumption). A case reproduces within ±5 points of step-time change, or says which
//! physical effect it misses; a stated miss must still get the sign right, and a miss
//! that closes fails here until its statement is removed.

use shardcalc_core::efficiency::calibration::bundled;
use shardcalc_core::training::mesh::Parallelism;
use shardcalc_core::training::step::Bottleneck;
use shardcalc_core::training::TrainingReport;
use shardcalc_core::validation::case_studies::{CaseStudy, CaseStudyRow, CASES, TOLERANCE_POINTS};
use shardcalc_core::validation::predict::Prepared;

fn row(case: &CaseStudy) -> CaseStudyRow {
    case.row(Some(&bundled())).unwrap_or_else(|e| panic!("{}: {e}", case.id))
}

#[test]
fn each_case_reproduces_or_states_its_miss() {
    let mut report = Vec::new();
    for case in CASES {
        let r = row(case);
        let predicted = r.predicted_change_pct;
        report.push(format!("{}: predicted {predicted:+.1}%, published {:?}", r.id, r.published_change_pct));
        let Some(published) = r.published_change_pct else {
            assert!(predicted > 0.0, "{}: the guide found the change slower; predicted {predicted:+.1}%", r.id);
            continue;
        };
        let gap = (predicted - published).abs();
        match &r.known_miss {
            None => assert!(gap <= TOLERANCE_POINTS, "{}: predicted {predicted:+.1}%, published {published:+}%", r.id),
            Some(why) => {
                assert!(predicted * published > 0.0, "{}: a stated miss keeps the sign: {predicted:+.1}%", r.id);
                assert!(
                    gap > TOLERANCE_POINTS,
                    "{}: predicted {predicted:+.1}% is now within {TOLERANCE_POINTS} points of {published:+}%: remove its known miss ({why})",
                    r.id
                );
                // The statement's own figure of the miss follows the model.
                let stated: f64 = why
                    .split("Missed by about ")
                    .nth(1)
                    .and_then(|t| t.split(' ').next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| {
                        panic!("{}: the known miss says by how much ('Missed by about N points')", r.id)
                    });
                assert!(
                    (stated - gap).abs() <= 1.0,
                    "{}: the known miss says {stated} points, the gap is {gap:.1}",
                    r.id
                );
            }
        }
    }
    eprintln!("{}", report.join("\n"));
}

fn plan(case: &CaseStudy, setting: &shardcalc_core::validation::case_studies::Setting) -> TrainingReport {
    Prepared::new(&case.scenario(setting)).unwrap().plan(Some(&bundled())).unwrap()
}

fn comm(r: &TrainingReport, p: Parallelism) -> (f64, f64, bool) {
    r.communication
        .iter()
        .find(|c| c.parallelism == p)
        .map_or((0.0, 0.0, false), |c| (c.time_s.get(), c.exposed_s.get(), c.critical_path))
}

/// "The All-to-All collective used in Expert Parallelism caused a large bottleneck ... We
/// got the best performance using FSDP": for the right reason. With EP 4, 8 or 16 over ICI
/// and the die-to-die link, EP computes less (each device runs fewer, fuller expert
/// groups) and gathers fewer weights, but its AllToAlls sit on the critical path and cost
/// more than that saves: the difference between the steps is the AllToAll's exposure
/// less EP's savings, visible in the breakdown (`communication[ep].exposed_s`, `compute_s`).
#[test]
fn fsdp_beats_expert_parallelism_because_of_the_all_to_all() {
    let case = CASES.iter().find(|c| c.id == "ironwood-moe-110b-fsdp-vs-ep").unwrap();
    let fsdp = plan(case, &case.before);
    assert_eq!(comm(&fsdp, Parallelism::Ep), (0.0, 0.0, false));
    for ep in [4, 8, 16] {
        let mut setting = case.after;
        setting.mesh.ep = ep;
        setting.mesh.fsdp = 128 / ep;
        let hybrid = plan(case, &setting);
        let (time, exposed, critical) = comm(&hybrid, Parallelism::Ep);
        assert!(critical && exposed == time, "EP {ep}: the AllToAll is on the critical path");
        let saved = fsdp.breakdown.compute_s.get() - hybrid.breakdown.compute_s.get();
        let other = |r: &TrainingReport| r.step_time_s.get() - r.breakdown.compute_s.get() - comm(r, Parallelism::Ep).1;
        // EP computes less; without its AllToAll it would win; with it, it loses.
        assert!(saved > 0.0, "EP {ep}: EP computes less ({saved} s)");
        assert!(hybrid.step_time_s.get() - exposed < fsdp.step_time_s.get(), "EP {ep}: faster without the AllToAll");
        assert!(hybrid.step_time_s.get() > fsdp.step_time_s.get(), "EP {ep}: FSDP is faster");
        assert!(exposed > saved + other(&fsdp) - other(&hybrid), "EP {ep}: the AllToAll is what loses");
        let loss = hybrid.bound.largest_loss.as_ref().map(|l| (l.resource, l.axis));
        assert_eq!(
            loss,
            Some((Bottleneck::Communication, Some(Parallelism::Ep))),
            "EP {ep}: {}",
            hybrid.bound.explanation
        );
    }
}

/// The notes' numbers: EP 2 on the die-to-die link alone beats FSDP; TP 2 + CP 2 with TP
/// on the critical path is slower than CP 4.
#[test]
fn the_notes_say_what_the_model_computes() {
    let moe = CASES.iter().find(|c| c.id == "ironwood-moe-110b-fsdp-vs-ep").unwrap();
    let mut ep2 = moe.after;
    ep2.mesh.ep = 2;
    ep2.mesh.fsdp = 64;
    let (fsdp, ep2) = (plan(moe, &moe.before), plan(moe, &ep2));
    let ep2_change = 100.0 * (ep2.step_time_s.get() / fsdp.step_time_s.get() - 1.0);
    assert!((ep2_change + 4.7).abs() < 0.05, "EP 2: {ep2_change:+.2}%");
    let ep2_axes = &ep2.communication.iter().find(|c| c.parallelism == Parallelism::Ep).unwrap().axes;
    assert_eq!(ep2_axes, &["d2d".to_string()]);
    let long = CASES.iter().find(|c| c.id == "ironwood-dense-128k-tp2-cp2").unwrap();
    let r = row(long);
    assert!(r.predicted_change_pct.abs() < 0.01, "{}", r.predicted_change_pct);
    let (mut cp4, mut tp2) = (long.before, long.after);
    cp4.tensor_overlap = false;
    tp2.tensor_overlap = false;
    let critical = 100.0 * (plan(long, &tp2).step_time_s.get() / plan(long, &cp4).step_time_s.get() - 1.0);
    assert!((critical - 1.0).abs() < 0.1, "TP on the critical path: {critical:+.2}%");
}
