package org.example.textkit;

public final class Versions {

    public static boolean isNewer(String current, String candidate) {
        int a = Integer.parseInt(current.split("\\.")[0]);
        int b = Integer.parseInt(candidate.split("\\.")[0]);
        return b > a;
    }
}
