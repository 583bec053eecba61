// The one list of laws. Everything that is per law derives from it: the host registry
// (host/engine/registry.cpp), the CPU reference dispatch (host/reference/reference.cpp), the
// explicit instantiations of the CUDA kernels (kernels/cuda/*.cu).
//
// IMPACT_FOR_EACH_LAW(X) expands to X(NewtonLaw) X(ChatterjeeRuinaLaw) ... in registry order.
// Adding a law: its header in include/impact/laws/ (physics and metadata, see impact/law_meta.hpp),
// one line here, and its CPU reference in host/reference/ (ref::solve<Law>).
#pragma once
#include "impact/laws/aghili.hpp"
#include "impact/laws/chatterjee_ruina.hpp"
#include "impact/laws/jia.hpp"
#include "impact/laws/morgan.hpp"
#include "impact/laws/newton.hpp"
#include "impact/laws/stronge.hpp"

#define IMPACT_FOR_EACH_LAW(X) X(NewtonLaw) X(ChatterjeeRuinaLaw) X(AghiliLaw) X(MorganLaw) X(StrongeLaw) X(JiaLaw)
