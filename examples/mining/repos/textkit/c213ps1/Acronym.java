package org.example.textkit;

public final class Acronym {

    public static String of(String phrase) {
        StringBuilder sb = new StringBuilder();
        for (String word : phrase.split(" ")) {
            sb.append(word.charAt(0));
        }
        return sb.toString().toUpperCase();
    }
}
